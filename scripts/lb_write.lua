-- lb_write.lua: apply one write to every board of a leaderboard in one
-- atomic step, at most once per request id: the periodic boards (hour, day,
-- week, month, all time) and the rolling ones (the last N hours or days;
-- leaderboard/window.go says how they stay exact). Every board is checked
-- before any is written: a write that would take one board past the maximum
-- writes nothing.
--
-- KEYS[1..n] -> <ns>:lb:{L}:<kind>:<start>  the periodic boards (all time: <ns>:lb:{L}:all_time),
--               then their public twins <ns>:lb:{L}:pub:<kind>:<start> (ARGV[12])
-- KEYS[n+1] -> <ns>:lb:{L}:mult              the multipliers (only with public twins)
-- then, per rolling board j, 5 keys and, when seeding, its seed keys:
--   <ns>:lb:{L}:bucket:<unit>:<start(i)>       B(i), the bucket of now
--   <ns>:lb:{L}:<window>:<start(i)>            S(i), the rolling board of now
--   <ns>:lb:{L}:<window>:<start(i+1)>          S(i+1), the next one
--   <ns>:lb:{L}:bucket:<unit>:<start(i-N+1)>   the oldest bucket S(i) sums (B(i) when N = 1)
--   <ns>:lb:{L}:fill:<window>:<start(i)>       'done' once S(i) holds every member
--   seed keys: B(i-N+1) .. B(i-1)
-- then, per carry-over c, the board of the period after periodic board i's
-- then, per rate limit, <ns>:lb:{L}:rl:<limit>:<window start ms|ever> <dimension values>: its counter
-- then, per participant count, <ns>:lb:{L}:hll:<kind>:<start> and ...:<member>: HyperLogLogs
--   of the period's actors, on the leaderboard and on the member
-- then, for a queued write, <ns>:lb:{L}:queue: the stream it came from
-- last     -> <ns>:lb:{L}:q:<scope>:<id>      the request's stored result (only with a request id)
-- ARGV[1] -> now in ms, or '' for Redis TIME
-- ARGV[2] -> n, the number of periodic boards
-- ARGV[3] -> member
-- ARGV[4] -> operator: incr | decr | best | set (rolling boards: incr | decr)
-- ARGV[5] -> value (an integer >= 0)
-- ARGV[6] -> the maximum score: every score stays within -max..max
-- ARGV[7] -> order: desc (higher ranks first) | asc (lower ranks first)
-- ARGV[8] -> idempotency window (ms)
-- ARGV[9] -> w, the number of rolling boards
-- ARGV[10] -> '1' when the seed keys are given
-- ARGV[11] -> '1' with a request id
-- ARGV[12] -> p, the first public board (0: none): boards p..n are the public
--            twins of boards 1..n-p+1, where a write counts value times the
--            member's multiplier, read from KEYS[n+1], <ns>:lb:{L}:mult
-- then six per periodic board i, from ARGV[13 + 6(i-1)]:
--   start (Unix s), end (Unix s): the board's period, or the span first_reached
--                                 counts over for the all-time board
--   checked: 1 when now must fall in [start, end) (periodic boards), 0 (all time)
--   tie bits: the low bits first_reached keeps (0: ties by member id; the same
--             on every periodic board, so board 1's says for all)
--   unit (ms) of first_reached's time
--   retention (ms): how long the board stays after its period ends, '' for ever
-- then six per rolling board j, from ARGV[13 + 6n + 6(j-1)]:
--   start, end (Unix s) of bucket i; end (Unix s) of bucket i+1
--   retention (ms) of the rolling boards
--   retention (ms) of B(i), or '' when an earlier rolling board of the same
--     unit writes it (windows of one unit share their buckets)
--   the number of seed keys (N - 1)
-- then ARGV[13 + 6n + 6w] -> c, the number of carry-overs, and four per carry-over:
--   i, the periodic board that carries; its share in percent (1-100); start and
--   end (Unix s) of the period after i's
-- then ARGV[14 + 6n + 6w + 4c] -> r, the number of rate limits, and four per limit
--   (common.lua's limits): the most writes its window allows this one's dimensions;
--   start and end (ms) of its window ('' for ever); 'write'
-- then ARGV[15 + 6n + 6w + 4c + 4r] -> h, the number of participant counts, the actor,
--   and two per count: end (Unix s) of its period, its retention (ms; '' for all time)
-- then ARGV[17 + 6n + 6w + 4c + 4r + 2h] -> a queued write's stream entry id ('': not
--   queued; ARGV[1] is then the entry's time), and its consumer group: once written, the
--   entry is acknowledged and deleted from its stream, the key after the participants'
--
-- Returns one of
--   {0, now, score1, rank1, ..., scoren+w, rankn+w} written (or unchanged) at now (ms): each
--                                            board's score and 1-based rank (0: not on it)
--   {1, at, score1, rank1, ...}             a retry: the first write's result, made at at (ms)
--   {2, now}                                a board's period is not the one at Redis's now (ms):
--                                           recompute the periods and retry
--   {7, i, score}                           board i would pass the maximum; its current score
--   {8}                                     the request id was used for another member
--   {14}                                    a rolling board the member is not on is not yet
--                                           filled: send the seed keys
--   {16, l, end}                            rate limit l is reached; its window ends at end (ms,
--                                           -1: never); nothing written, nothing consumed
--
-- uses: int now_ms reached limits

-- P: the first periodic board's arguments
local P = 13
local n, member, w = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[9])
local public = tonumber(ARGV[12])
local seeding = ARGV[10] == '1'
local rid = ARGV[11] == '1' and KEYS[#KEYS]
if rid then
  -- stored: at:score1:rank1:...:member (members may hold ':', so it comes last)
  local stored = redis.call('GET', rid)
  if stored then
    local fields = {1}
    local pos = 1
    for _ = 1, 2 * (n + w) + 1 do
      local stop = string.find(stored, ':', pos, true)
      fields[#fields + 1] = tonumber(string.sub(stored, pos, stop - 1))
      pos = stop + 1
    end
    if string.sub(stored, pos) ~= member then
      return {8}
    end
    return fields
  end
end

-- The rolling boards' keys and arguments: rk[j] their first key, ra[j]
-- their first argument.
local rk, ra = {}, {}
local key = n + 1
if public > 0 then key = n + 2 end
for j = 1, w do
  rk[j], ra[j] = key, P + 6 * n + 6 * (j - 1)
  key = key + 5
  if seeding then
    key = key + tonumber(ARGV[ra[j] + 5])
  end
end

local now = now_ms(ARGV[1])
for i = 1, n do
  local a = P + 6 * (i - 1)
  if ARGV[a + 2] == '1' and (now < tonumber(ARGV[a]) * 1000 or now >= tonumber(ARGV[a + 1]) * 1000) then
    return {2, now}
  end
end
for j = 1, w do
  if now < tonumber(ARGV[ra[j]]) * 1000 or now >= tonumber(ARGV[ra[j] + 1]) * 1000 then
    return {2, now}
  end
end

-- Rate limits, checked before anything is written and consumed after.
local c0 = P + 6 * n + 6 * w
local ck = key -- the first carry-over key, then the limits' counters
local r0 = c0 + 1 + 4 * tonumber(ARGV[c0])
local lk, nl = key + tonumber(ARGV[c0]), tonumber(ARGV[r0])
local over = limits_over(lk, r0 + 1, nl, 'write', 1, now)
if over < 0 then
  return {2, now}
elseif over > 0 then
  return {16, over, tonumber(ARGV[r0 + 4 * over - 1]) or -1}
end

local op, value, max, asc = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7] == 'asc'
local delta = value
if op == 'decr' then delta = -value end
-- values[i], deltas[i]: the write on periodic board i (times the
-- multiplier on a public twin)
local values, deltas = {}, {}
local mult = 1
if public > 0 then mult = tonumber(redis.call('HGET', KEYS[n + 1], member) or 1) end
for i = 1, n do
  local m = 1
  if public > 0 and i >= public then m = mult end
  values[i], deltas[i] = value * m, delta * m
end

-- Rolling boards, read and checked before anything is written: the
-- member's sum on S(i) (absent: zero once S(i) is filled; before that, the
-- sum of its buckets, which the caller sends on request), and the new sum.
local sums = {}
for j = 1, w do
  local k = rk[j]
  local cur = redis.call('ZSCORE', KEYS[k + 1], member)
  if cur then
    cur = tonumber(cur)
  elseif redis.call('GET', KEYS[k + 4]) == 'done' then
    cur = 0
  elseif seeding then
    cur = tonumber(redis.call('ZSCORE', KEYS[k], member) or 0)
    for s = k + 5, k + 4 + tonumber(ARGV[ra[j] + 5]) do
      cur = cur + tonumber(redis.call('ZSCORE', KEYS[s], member) or 0)
    end
  else
    return {14}
  end
  if cur + delta > max or cur + delta < -max then
    return {7, n + j, cur}
  end
  sums[j] = cur + delta
end

local scores, fresh = {}, {}
if n == 0 then
  -- rolling boards only
elseif (op == 'incr' or op == 'decr') and ARGV[P + 3] == '0' then
  -- Sums without tie bits: one ZADD XX INCR a board (two for a member new
  -- to it), the result checked after; a write that takes a board past the
  -- maximum is undone on every board it touched, exactly: a member it
  -- added is removed again, a score it moved moved back.
  for i = 1, n do
    local score = redis.call('ZADD', KEYS[i], 'XX', 'INCR', deltas[i], member)
    if score then
      score = tonumber(score)
    else
      redis.call('ZADD', KEYS[i], deltas[i], member)
      score, fresh[i] = deltas[i], true
    end
    if score > max or score < -max then
      for j = 1, i do
        if fresh[j] then
          redis.call('ZREM', KEYS[j], member)
        else
          redis.call('ZINCRBY', KEYS[j], -deltas[j], member)
        end
      end
      return {7, i, score - deltas[i]}
    end
    scores[i] = score
  end
else
  local packed = {}
  for i = 1, n do
    local a = P + 6 * (i - 1)
    local tb, unit = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
    local shift = 2 ^ tb
    local current = redis.call('ZSCORE', KEYS[i], member)
    local score, v = nil, values[i]
    if current then
      current = math.floor(tonumber(current) / shift)
    end
    if op == 'incr' then
      score = (current or 0) + v
    elseif op == 'decr' then
      score = (current or 0) - v
    elseif op == 'best' and current and ((asc and current <= v) or (not asc and current >= v)) then
      score = current
    else
      score = v
    end
    if score > max or score < -max then
      return {7, i, current or 0}
    end
    scores[i] = score
    fresh[i] = not current
    if score ~= current then
      local tie = 0
      if tb > 0 then
        tie = reached(now, tonumber(ARGV[a]), tonumber(ARGV[a + 1]), unit, shift, asc)
      end
      packed[i] = score * shift + tie
    end
  end
  -- Every board checked: now written.
  for i = 1, n do
    if packed[i] then
      redis.call('ZADD', KEYS[i], packed[i], member)
    end
  end
end

local function rank(board)
  local r
  if asc then
    r = redis.call('ZRANK', board, member)
  else
    r = redis.call('ZREVRANK', board, member)
  end
  if r then return r + 1 end
  return 0
end

local reply, stored = {0, now}, int(now) .. ':'
local function report(score, r)
  reply[#reply + 1] = score
  reply[#reply + 1] = r
  stored = stored .. int(score) .. ':' .. r .. ':'
end

for i = 1, n do
  local a = P + 6 * (i - 1)
  if fresh[i] and ARGV[a + 5] ~= '' then
    -- Set when a member first lands on the board (the board's first
    -- member made the key), not at every write: the deadline is the same,
    -- and a call saved per board and write. Relative to the script's
    -- clock, which tests inject: an absolute time would be judged by
    -- Redis's own.
    local end_ms = tonumber(ARGV[a + 1]) * 1000
    redis.call('PEXPIRE', KEYS[i], end_ms + tonumber(ARGV[a + 5]) - now)
  end
  report(scores[i], rank(KEYS[i]))
end

-- Rolling boards: B(i) += delta (once per unit), S(i) = the new sum, and
-- S(i+1) = S(i) - B(i-N+1), the member's sum when the next bucket begins.
-- A zero sum leaves the board (writes all move one way: zero means none).
local function put(board, score, end_s, retention)
  if score == 0 then
    redis.call('ZREM', board, member)
  elseif redis.call('ZADD', board, score, member) == 1 then
    redis.call('PEXPIRE', board, end_s * 1000 + retention - now)
  end
end
for j = 1, w do
  local k, a = rk[j], ra[j]
  if ARGV[a + 4] ~= '' and delta ~= 0 then
    if not redis.call('ZADD', KEYS[k], 'XX', 'INCR', delta, member) then
      redis.call('ZADD', KEYS[k], delta, member)
      redis.call('PEXPIRE', KEYS[k], tonumber(ARGV[a + 1]) * 1000 + tonumber(ARGV[a + 4]) - now)
    end
  end
  local retention = tonumber(ARGV[a + 3])
  put(KEYS[k + 1], sums[j], tonumber(ARGV[a + 1]), retention)
  local leaving = tonumber(redis.call('ZSCORE', KEYS[k + 3], member) or 0)
  put(KEYS[k + 2], sums[j] - leaving, tonumber(ARGV[a + 2]), retention)
  local r = 0
  if sums[j] ~= 0 then r = rank(KEYS[k + 1]) end
  report(sums[j], r)
end

-- Carry-over: the next period's board opens with a share of this period's
-- score (rounded towards zero), set at every write rather than by a job at
-- the boundary (seed 003). Until the next period begins its board holds
-- nothing else, so setting it keeps it exact. A carried score ranks ahead
-- of the same score reached in the next period (first_reached: as if
-- reached before it began).
for c = 1, tonumber(ARGV[c0]) do
  local a = c0 + 1 + 4 * (c - 1)
  local i = tonumber(ARGV[a])
  local b = P + 6 * (i - 1)
  local carried = math.floor(math.abs(scores[i]) * tonumber(ARGV[a + 1]) / 100)
  if scores[i] < 0 then carried = -carried end
  local nextb = KEYS[ck + c - 1]
  if carried == 0 then
    redis.call('ZREM', nextb, member)
  else
    local tb = tonumber(ARGV[b + 3])
    local shift, tie = 2 ^ tb, 0
    if tb > 0 and not asc then tie = shift - 1 end
    if redis.call('ZADD', nextb, carried * shift + tie, member) == 1 then
      redis.call('PEXPIRE', nextb, tonumber(ARGV[a + 3]) * 1000 + tonumber(ARGV[b + 5]) - now)
    end
  end
end

-- Written: every limit consumed.
limits_take(lk, r0 + 1, nl, nil, 1, now)

-- Participants: the actor joins the period's HyperLogLogs, the
-- leaderboard's and the member's.
local h0 = r0 + 1 + 4 * nl
local hk = lk + nl
for h = 1, tonumber(ARGV[h0]) do
  local a = h0 + 2 + 2 * (h - 1)
  for _, hll in ipairs({KEYS[hk + 2 * (h - 1)], KEYS[hk + 2 * h - 1]}) do
    if redis.call('PFADD', hll, ARGV[h0 + 1]) == 1 and ARGV[a + 1] ~= '' then
      redis.call('PEXPIRE', hll, tonumber(ARGV[a]) * 1000 + tonumber(ARGV[a + 1]) - now)
    end
  end
end

-- A queued write (leaderboard/queue.go) leaves its stream in the same
-- step: applied once, however often a crashed consumer's entry is claimed.
local a0 = h0 + 2 + 2 * tonumber(ARGV[h0])
if ARGV[a0] ~= '' then
  local stream = KEYS[hk + 2 * tonumber(ARGV[h0])]
  redis.call('XACK', stream, ARGV[a0 + 1], ARGV[a0])
  redis.call('XDEL', stream, ARGV[a0])
end

if rid then
  redis.call('SET', rid, stored .. member, 'PX', ARGV[8])
end
return reply
