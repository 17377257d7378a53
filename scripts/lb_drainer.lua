-- lb_drainer.lua: say whether a consumer should drain a shard's queue now.
-- One consumer at a time drains a shard while its backlog is small: the
-- queue lives in the Redis it feeds, and consumers applying flat out on
-- every replica take the Redis turns a burst's enqueues need (measured in
-- BENCHMARKS.md). That consumer holds a short lease, taken or renewed here
-- at each drain; past the backlog bound every consumer drains. The lease
-- only paces: exactly-once rests on lb_write.lua, whoever applies.
--
-- KEYS[1] -> <ns>:lb:{L}:drainer  the lease: the token of the consumer draining
-- KEYS[2] -> <ns>:lb:{L}:queue    the shard's stream
-- ARGV[1] -> the caller's token
-- ARGV[2] -> the lease's length (ms)
-- ARGV[3] -> the backlog from which every consumer drains
--
-- Returns {1, length} drain (the lease is the caller's, or the backlog is
-- past the bound), or {0, length} another consumer holds the lease.
--
-- uses: (no helpers)

local n = redis.call('XLEN', KEYS[2])
if n >= tonumber(ARGV[3]) then
  return {1, n}
end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then
  return {0, n}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, n}
