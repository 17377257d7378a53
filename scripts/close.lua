-- close.lua: close a period for settlement once Redis's clock has passed its
-- end. After this no join or score write lands in the period, so its boards
-- are frozen and every reader sees the same final ranking.
--
-- KEYS[1] -> <ns>:{L}:c:<S>   the period's counters
-- KEYS[2] -> <ns>:{L}:meta     'epoch'
-- ARGV[1] -> now in ms, or '' for Redis TIME
-- ARGV[2] -> the period's end (Unix s)
-- ARGV[3] -> the epoch the caller opened the league at
-- ARGV[4] -> the fingerprint of the caller's ladder rules
--
-- Returns
--   {0, counters}   closed (now or earlier); counters = flat HGETALL (tier code, players,
--                   ..., 'closed', 'ladder'): 'ladder' is the fingerprint of the rules the
--                   period is decided under, ARGV[4] unless a join's decision came first
--   {10, now}       the period has not ended at Redis's now (ms)
--   {11}            the league's epoch is not ARGV[3]: the caller's tier codes may be
--                   stale (Redis lost the league, or a restore replaced it); nothing written
--
-- uses: now_ms

if redis.call('HGET', KEYS[2], 'epoch') ~= ARGV[3] then
  return {11}
end
local now = now_ms(ARGV[1])
if now < tonumber(ARGV[2]) * 1000 then
  return {10, now}
end
redis.call('HSET', KEYS[1], 'closed', '1')
redis.call('HSETNX', KEYS[1], 'ladder', ARGV[4])
return {0, redis.call('HGETALL', KEYS[1])}
