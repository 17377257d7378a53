-- close.lua: close a period for settlement once Redis's clock has passed its
-- end. After this no join or score write lands in the period, so its boards
-- are frozen and every reader sees the same final ranking.
--
-- KEYS[1] -> <ns>:{L}:c:<S>   the period's counters
-- ARGV[1] -> now in ms, or '' for Redis TIME
-- ARGV[2] -> the period's end (Unix s)
--
-- Returns
--   {0, counters}   closed (now or earlier); counters = flat HGETALL (tier code, players, ...)
--   {10, now}       the period has not ended at Redis's now (ms)
--
-- uses: now_ms

local now = now_ms(ARGV[1])
if now < tonumber(ARGV[2]) * 1000 then
  return {10, now}
end
redis.call('HSET', KEYS[1], 'closed', '1')
return {0, redis.call('HGETALL', KEYS[1])}
