-- apply.lua: make a settled period's outcomes visible to joins, for a batch of
-- players. Safe to run any number of times: a record is only touched while it
-- still points at the settled period, and rewards are only left where nothing
-- of this period (pending or already claimed) is.
--
-- KEYS[2i-1] -> <ns>:{L}:r:<b>  record bucket of player i
-- KEYS[2i]   -> <ns>:{L}:w:<b>  reward bucket of player i
-- ARGV[1]    -> S, the settled period's start (Unix s)
-- ARGV[3i-1] -> player i
-- ARGV[3i]   -> player i's new tier code, or '' when they stay
-- ARGV[3i+1] -> player i's rewards as JSON, or ''
--
-- Returns the number of records moved to a new tier.
--
-- uses: NO_TIER rec_decode rec_encode

local s = tonumber(ARGV[1])
local moved = 0
for i = 1, #KEYS / 2 do
  local player, next_tier, items = ARGV[3 * i - 1], ARGV[3 * i], ARGV[3 * i + 1]
  if next_tier ~= '' then
    local rec = redis.call('HGET', KEYS[2 * i - 1], player)
    if rec then
      local rs, t, n, nx = rec_decode(rec)
      if rs == s and nx == NO_TIER then
        redis.call('HSET', KEYS[2 * i - 1], player, rec_encode(rs, t, n, tonumber(next_tier)))
        moved = moved + 1
      end
    end
  end
  if items ~= '' then
    local w = redis.call('HGET', KEYS[2 * i], player)
    if not w or tonumber(string.match(w, '^(%d+)|')) < s then
      redis.call('HSET', KEYS[2 * i], player, ARGV[1] .. '|p|' .. items)
    end
  end
end
return moved
