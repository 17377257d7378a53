-- prune.lua: delete a consumer of the claims group if it holds no pending
-- claims. Checked and deleted in one step: XGROUP DELCONSUMER drops a
-- consumer's pending entries with it, and a claim dropped from the pending
-- list is never delivered again, so a consumer that read a claim between a
-- separate check and the delete would lose it.
--
-- KEYS[1] -> <ns>:{L}:x   claims stream
-- ARGV[1] -> the group    ARGV[2] -> the consumer
--
-- Returns 1 when the consumer held no pending claims and is gone now, 0 when
-- it holds pending claims and stays.
--
-- uses: (no helpers)

if #redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2]) > 0 then
  return 0
end
redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
return 1
