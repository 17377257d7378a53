-- lb_write.lua: apply one write to every periodic board of a leaderboard
-- (hour, day, week, month, all time) in one atomic step, at most once per
-- request id. Every board is checked before any is written: a write that
-- would take one board past the maximum writes nothing.
--
-- KEYS[1..n] -> <ns>:lb:{L}:<kind>:<start>  the boards (all time: <ns>:lb:{L}:all_time)
-- KEYS[n+1]  -> <ns>:lb:{L}:q:<scope>:<id>  the request's stored result (only with a request id)
-- ARGV[1] -> now in ms, or '' for Redis TIME
-- ARGV[2] -> n, the number of boards
-- ARGV[3] -> member
-- ARGV[4] -> operator: incr | decr | best | set
-- ARGV[5] -> value (an integer >= 0)
-- ARGV[6] -> the maximum score: every score stays within -max..max
-- ARGV[7] -> order: desc (higher ranks first) | asc (lower ranks first)
-- ARGV[8] -> idempotency window (ms)
-- then six per board i, from ARGV[9 + 6(i-1)]:
--   start (Unix s), end (Unix s): the board's period, or the span first_reached
--                                 counts over for the all-time board
--   checked: 1 when now must fall in [start, end) (periodic boards), 0 (all time)
--   tie bits: the low bits first_reached keeps (0: ties by member id; the same
--             on every board, so board 1's, ARGV[12], says for all)
--   unit (ms) of first_reached's time
--   retention (ms): how long the board stays after its period ends, '' for ever
--
-- Returns one of
--   {0, now, score1, rank1, ..., scoren, rankn}  written (or unchanged) at now (ms): each board's
--                                                score and 1-based rank
--   {1, at, score1, rank1, ...}                  a retry: the first write's result, made at at (ms)
--   {2, now}                                a board's period is not the one at Redis's now (ms):
--                                           recompute the periods and retry
--   {7, i, score}                           board i would pass the maximum; its current score
--   {8}                                     the request id was used for another member
--
-- uses: int now_ms

local n, member = tonumber(ARGV[2]), ARGV[3]
local rid = KEYS[n + 1]
if rid then
  -- stored: at:score1:rank1:...:member (members may hold ':', so it comes last)
  local stored = redis.call('GET', rid)
  if stored then
    local fields = {1}
    local pos = 1
    for _ = 1, 2 * n + 1 do
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

local now = now_ms(ARGV[1])
for i = 1, n do
  local a = 9 + 6 * (i - 1)
  if ARGV[a + 2] == '1' and (now < tonumber(ARGV[a]) * 1000 or now >= tonumber(ARGV[a + 1]) * 1000) then
    return {2, now}
  end
end

local op, value, max, asc = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7] == 'asc'
local scores, fresh = {}, {}
if (op == 'incr' or op == 'decr') and ARGV[12] == '0' then
  -- Sums without tie bits: one ZADD XX INCR a board (two for a member new
  -- to it), the result checked after; a write that takes a board past the
  -- maximum is undone on every board it touched, exactly: a member it
  -- added is removed again, a score it moved moved back.
  local delta = value
  if op == 'decr' then delta = -value end
  for i = 1, n do
    local score = redis.call('ZADD', KEYS[i], 'XX', 'INCR', delta, member)
    if score then
      score = tonumber(score)
    else
      redis.call('ZADD', KEYS[i], delta, member)
      score, fresh[i] = delta, true
    end
    if score > max or score < -max then
      for j = 1, i do
        if fresh[j] then
          redis.call('ZREM', KEYS[j], member)
        else
          redis.call('ZINCRBY', KEYS[j], -delta, member)
        end
      end
      return {7, i, score - delta}
    end
    scores[i] = score
  end
else
  local packed = {}
  for i = 1, n do
    local a = 9 + 6 * (i - 1)
    local tb, unit = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
    local shift = 2 ^ tb
    local current = redis.call('ZSCORE', KEYS[i], member)
    local score
    if current then
      current = math.floor(tonumber(current) / shift)
    end
    if op == 'incr' then
      score = (current or 0) + value
    elseif op == 'decr' then
      score = (current or 0) - value
    elseif op == 'best' and current and ((asc and current <= value) or (not asc and current >= value)) then
      score = current
    else
      score = value
    end
    if score > max or score < -max then
      return {7, i, current or 0}
    end
    scores[i] = score
    fresh[i] = not current
    if score ~= current then
      -- first_reached: reaching a score earlier ranks higher. Descending
      -- boards keep the time left before the end (more is better),
      -- ascending ones the time since the start (less is better).
      local tie = 0
      if tb > 0 then
        if asc then
          tie = math.floor((now - tonumber(ARGV[a]) * 1000) / unit)
        else
          tie = math.floor((tonumber(ARGV[a + 1]) * 1000 - now) / unit)
        end
        if tie < 0 then tie = 0 elseif tie > shift - 1 then tie = shift - 1 end
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

local reply, stored = {0, now}, int(now) .. ':'
for i = 1, n do
  local a = 9 + 6 * (i - 1)
  if fresh[i] and ARGV[a + 5] ~= '' then
    -- Set when a member first lands on the board (the board's first
    -- member made the key), not at every write: the deadline is the same,
    -- and a call saved per board and write. Relative to the script's
    -- clock, which tests inject: an absolute time would be judged by
    -- Redis's own.
    local end_ms = tonumber(ARGV[a + 1]) * 1000
    redis.call('PEXPIRE', KEYS[i], end_ms + tonumber(ARGV[a + 5]) - now)
  end
  local rank
  if asc then
    rank = redis.call('ZRANK', KEYS[i], member) + 1
  else
    rank = redis.call('ZREVRANK', KEYS[i], member) + 1
  end
  reply[#reply + 1] = scores[i]
  reply[#reply + 1] = rank
  stored = stored .. int(scores[i]) .. ':' .. rank .. ':'
end
if rid then
  redis.call('SET', rid, stored .. member, 'PX', ARGV[8])
end
return reply
