-- correct.lua: make a correction of a settled period (league/correct.go)
-- visible to joins, for its players. Safe to run any number of times: it
-- sets values, never adds to them, and only where the player's record and
-- reward still point at the corrected period; elsewhere it reports.
--
-- KEYS[1]      -> <ns>:{L}:meta    'epoch'
-- KEYS[2i]     -> <ns>:{L}:r:<b>  record bucket of player i
-- KEYS[2i+1]   -> <ns>:{L}:w:<b>  reward bucket of player i
-- ARGV[1]      -> S, the corrected period's start (Unix s)
-- ARGV[2]      -> the epoch the caller opened the league at
-- ARGV[3i]     -> player i
-- ARGV[3i+1]   -> player i's tier code after the correction, or '' when unchanged
-- ARGV[3i+2]   -> player i's reward: '' unchanged, '-' revoked, else the reward now owed as JSON
--
-- Returns -1 when the league's epoch is not ARGV[2] (nothing written), else
-- a list with a number per player, the sum of:
--   1  the tier could not be set: the player joined a later period already
--      (or Redis has no record of them)
--   2  the reward revoked had been claimed by a join already
--   4  the reward owed could not be left for a join: the slot holds a
--      later period's reward, or this period's was claimed already
--
-- uses: rec_decode rec_encode

if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[2] then
  return -1
end
local s = tonumber(ARGV[1])
local out = {}
for i = 1, (#KEYS - 1) / 2 do
  local player, next_tier, reward = ARGV[3 * i], ARGV[3 * i + 1], ARGV[3 * i + 2]
  local flags = 0
  if next_tier ~= '' then
    local rec = redis.call('HGET', KEYS[2 * i], player)
    local rs, t, n = 0, 0, 0
    if rec then
      rs, t, n = rec_decode(rec)
    end
    if rec and rs == s then
      redis.call('HSET', KEYS[2 * i], player, rec_encode(rs, t, n, tonumber(next_tier)))
    else
      flags = flags + 1
    end
  end
  if reward ~= '' then
    local w = redis.call('HGET', KEYS[2 * i + 1], player)
    local e, state = 0, ''
    if w then
      local es, st = string.match(w, '^(%d+)|(%a)|')
      e, state = tonumber(es), st
    end
    if e == s and state == 'c' then
      if reward == '-' then flags = flags + 2 else flags = flags + 2 + 4 end
    elseif e > s then
      if reward ~= '-' then flags = flags + 4 end
    elseif reward == '-' then
      if e == s then redis.call('HDEL', KEYS[2 * i + 1], player) end
    else
      redis.call('HSET', KEYS[2 * i + 1], player, ARGV[1] .. '|p|' .. reward)
    end
  end
  out[i] = flags
end
return out
