-- apply.lua: make a settled period's outcomes visible to joins, for a batch of
-- players. Safe to run any number of times: a record is only touched while it
-- still points at the settled period, and rewards are only left where nothing
-- of this period (pending or already claimed) is.
--
-- KEYS[1]      -> <ns>:{L}:meta    'epoch'
-- KEYS[2i]     -> <ns>:{L}:r:<b>  record bucket of player i
-- KEYS[2i+1]   -> <ns>:{L}:w:<b>  reward bucket of player i
-- ARGV[1]      -> S, the settled period's start (Unix s)
-- ARGV[2]      -> the epoch the caller opened the league at
-- ARGV[3i]     -> player i
-- ARGV[3i+1]   -> player i's new tier code, or '' when they stay
-- ARGV[3i+2]   -> player i's rewards as JSON, or ''
--
-- Returns the number of records moved to a new tier, or -1 when the league's
-- epoch is not ARGV[2]: the caller's tier codes may be stale (nothing written).
--
-- uses: NO_TIER rec_decode rec_encode

if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[2] then
  return -1
end
local s = tonumber(ARGV[1])
local moved = 0
for i = 1, (#KEYS - 1) / 2 do
  local player, next_tier, items = ARGV[3 * i], ARGV[3 * i + 1], ARGV[3 * i + 2]
  if next_tier ~= '' then
    local rec = redis.call('HGET', KEYS[2 * i], player)
    if rec then
      local rs, t, n, nx = rec_decode(rec)
      if rs == s and nx == NO_TIER then
        redis.call('HSET', KEYS[2 * i], player, rec_encode(rs, t, n, tonumber(next_tier)))
        moved = moved + 1
      end
    end
  end
  if items ~= '' then
    local w = redis.call('HGET', KEYS[2 * i + 1], player)
    if not w or tonumber(string.match(w, '^(%d+)|')) < s then
      redis.call('HSET', KEYS[2 * i + 1], player, ARGV[1] .. '|p|' .. items)
    end
  end
end
return moved
