-- restore.lua: write back what Redis held of a batch of players between
-- periods, rebuilt from the store after Redis lost it (leaguectl restore).
-- Like apply.lua, it never moves a player back: a record or a reward already
-- here from the same or a later period stays, so running it again, or over a
-- Redis that kept part of its data, changes nothing it should not.
--
-- KEYS[2i-1] -> <ns>:{L}:r:<b>  record bucket of player i
-- KEYS[2i]   -> <ns>:{L}:w:<b>  reward bucket of player i
-- ARGV[4i-3] -> player i
-- ARGV[4i-2] -> S, start of the last settled period player i played (Unix s)
-- ARGV[4i-1] -> player i's record: tier code played in S, join number on
--               their board, tier code settlement moved them to, as 't:n:nx'
-- ARGV[4i]   -> the rewards player i earned in S and no join claimed, as
--               JSON, or ''
--
-- Returns {records written, rewards written}.
--
-- uses: rec_decode rec_encode

local records, rewards = 0, 0
for i = 1, #KEYS / 2 do
  local player, s, rec, items = ARGV[4 * i - 3], tonumber(ARGV[4 * i - 2]), ARGV[4 * i - 1], ARGV[4 * i]
  local cur = redis.call('HGET', KEYS[2 * i - 1], player)
  if not cur or rec_decode(cur) < s then
    local t, n, nx = string.match(rec, '^(%d+):(%d+):(%d+)$')
    redis.call('HSET', KEYS[2 * i - 1], player, rec_encode(s, tonumber(t), tonumber(n), tonumber(nx)))
    records = records + 1
  end
  if items ~= '' then
    local w = redis.call('HGET', KEYS[2 * i], player)
    if not w or tonumber(string.match(w, '^(%d+)|')) < s then
      redis.call('HSET', KEYS[2 * i], player, ARGV[4 * i - 2] .. '|p|' .. items)
      rewards = rewards + 1
    end
  end
end
return {records, rewards}
