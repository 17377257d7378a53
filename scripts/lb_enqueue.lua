-- lb_enqueue.lua: append a write to a queued leaderboard's stream, unless
-- the stream already holds as many as it may (leaderboard/queue.go): the
-- length is checked and the entry added in one step, so racing writers
-- never push it past its bound.
--
-- KEYS[1] -> <ns>:lb:{L}:queue   the stream (of the member's shard)
-- ARGV[1] -> the most entries the stream may hold
-- ARGV[2] -> the entry's id: '*' (Redis's clock), or '<ms>-*' (a caller's clock, in tests)
-- ARGV[3], ARGV[4] -> from and until (ms, '' for unbounded): the span of the shard
--              count the stream was chosen by (leaderboard/reshard.go); the write's
--              time must fall in it
-- ARGV[5..] -> the write's fields and values: m member, v value, and those it
--              names of r request id, s scope, a actor, c channel, t terminal
--
-- Returns {1, id, length} queued as entry id (its time is Redis's, in ms, the
-- write's time), {0, length} the stream is full: nothing added, or {2, now} the
-- write's time (ms) is outside the span: choose the stream again.
--
-- uses: now_ms

if ARGV[3] ~= '' or ARGV[4] ~= '' then
  local now = now_ms(ARGV[2] == '*' and '' or string.sub(ARGV[2], 1, -3))
  if (ARGV[3] ~= '' and now < tonumber(ARGV[3])) or (ARGV[4] ~= '' and now >= tonumber(ARGV[4])) then
    return {2, now}
  end
end

local n = redis.call('XLEN', KEYS[1])
if n >= tonumber(ARGV[1]) then
  return {0, n}
end
local add = {'XADD', KEYS[1], ARGV[2]}
for i = 5, #ARGV do
  add[#add + 1] = ARGV[i]
end
return {1, redis.call(unpack(add)), n + 1}
