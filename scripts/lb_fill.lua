-- lb_fill.lua: one step of the pre-fill of a rolling board S(k): every
-- member whose sum over the window is not zero and who is not on S(k) yet
-- is put there with that sum (leaderboard/window.go). Members already on
-- S(k) were put there by a write, which keeps them exact, so the fill only
-- adds the absent, each in one atomic step: a fill racing writes, or
-- another fill, never leaves a wrong sum. Progress is kept in the marker
-- key, so a fill stopped anywhere resumes where it stopped; the lease keeps
-- one process filling a leaderboard's board at a time, and is let go when
-- the board is filled.
--
-- KEYS[1] -> <ns>:lb:{L}:fill                    the lease: the token of the filling process
-- KEYS[2] -> <ns>:lb:{L}:fill:<window>:<start(k)> S(k)'s progress: 'p:<index>', 'b:<bucket>:<index>', 'done'
-- KEYS[3] -> <ns>:lb:{L}:<window>:<start(k)>      S(k)
-- method p, previous (S(k-1) is filled): S(k) = S(k-1) - B(k-N) + B(k), over S(k-1)'s members
--   KEYS[4] -> S(k-1)   KEYS[5] -> B(k-N)   KEYS[6] -> B(k)
-- method b, buckets (S(k-1) is not filled): S(k) = B(k-N+1) + ... + B(k), over each bucket's members
--   KEYS[4..3+N] -> B(k-N+1) .. B(k)
-- ARGV[1] -> now in ms, or '' for Redis TIME
-- ARGV[2] -> the caller's lease token
-- ARGV[3] -> the lease's length (ms)
-- ARGV[4] -> method: p | b
-- ARGV[5] -> members to look at in this step
-- ARGV[6] -> direction scores move: up (incr) | down (decr)
-- ARGV[7] -> end of S(k)'s bucket (Unix s)
-- ARGV[8] -> retention of S(k) (ms): S(k) and its marker expire that long after its bucket
--
-- Returns {0, added} a step done, more to do; {1, added} S(k) is filled;
-- {15} another process holds the lease.
--
-- uses: now_ms

local done = redis.call('GET', KEYS[2])
if done == 'done' then
  return {1, 0}
end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[2] then
  return {15}
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])

local now, method, count = now_ms(ARGV[1]), ARGV[4], tonumber(ARGV[5])
local expiry = math.max(tonumber(ARGV[7]) * 1000 + tonumber(ARGV[8]) - now, 1)
local bucket, index = 1, 0
if done then
  local m, b, i = string.match(done, '^(%a):(%d+):?(%d*)$')
  if m == method then
    if m == 'p' then
      index = tonumber(b)
    else
      bucket, index = tonumber(b), tonumber(i)
    end
  end
end

-- Members are read by index, in the direction writes move them (the
-- highest first when scores go up): a write moves its member towards the
-- start and pushes others on, never back past the index reached, so none
-- is skipped (one may be looked at twice, which does nothing the second time).
local function page(key)
  if ARGV[6] == 'up' then
    return redis.call('ZREVRANGE', key, index, index + count - 1, 'WITHSCORES')
  end
  return redis.call('ZRANGE', key, index, index + count - 1, 'WITHSCORES')
end

local target, added = KEYS[3], 0
local function add(member, sum)
  if sum ~= 0 then
    redis.call('ZADD', target, sum, member)
    added = added + 1
  end
end

local finished
if method == 'p' then
  local entries = page(KEYS[4])
  for e = 1, #entries, 2 do
    local member = entries[e]
    if not redis.call('ZSCORE', target, member) then
      add(member, tonumber(entries[e + 1]) - tonumber(redis.call('ZSCORE', KEYS[5], member) or 0)
        + tonumber(redis.call('ZSCORE', KEYS[6], member) or 0))
    end
  end
  index = index + #entries / 2
  finished = #entries / 2 < count
  done = 'p:' .. index
else
  local last = #KEYS
  local entries = page(KEYS[3 + bucket])
  for e = 1, #entries, 2 do
    local member = entries[e]
    if not redis.call('ZSCORE', target, member) then
      local sum = 0
      for b = 4, last do
        sum = sum + tonumber(redis.call('ZSCORE', KEYS[b], member) or 0)
      end
      add(member, sum)
    end
  end
  index = index + #entries / 2
  if #entries / 2 < count then
    bucket, index = bucket + 1, 0
  end
  finished = 3 + bucket > last
  done = 'b:' .. bucket .. ':' .. index
end

if added > 0 then
  redis.call('PEXPIRE', target, expiry)
end
if finished then
  redis.call('SET', KEYS[2], 'done', 'PX', expiry)
  redis.call('DEL', KEYS[1])
  return {1, added}
end
redis.call('SET', KEYS[2], done, 'PX', expiry)
return {0, added}
