-- lb_around.lua: the window of a board around a member: n ranks above and
-- n below, read in one round trip (read only; EVALSHA_RO, but EVALSHA on a
-- board that counts participants: Redis refuses PFCOUNT, which may cache
-- its estimate in the HyperLogLog, in a read-only script).
--
-- KEYS[1] -> the board
-- KEYS[2] -> (a rolling board) its pre-fill's progress, 'done' once filled
-- then (a board that counts participants) the period's HyperLogLog of actors
-- ARGV[1] -> member
-- ARGV[2] -> n
-- ARGV[3] -> order: desc | asc
-- ARGV[4] -> r: 1 for a rolling board (KEYS[2] is its pre-fill's), else 0
--
-- Returns {first, size, filled, participants, member1, packed1, member2,
-- packed2, ...}: the 0-based rank of the window's first entry, the board's
-- size, 1 when the board is filled (a periodic board always is), and the
-- period's distinct actors (-1: not counted); {-1, size, filled,
-- participants} when the member is not on the board.
--
-- uses: (no helpers)

local asc, n, r = ARGV[3] == 'asc', tonumber(ARGV[2]), tonumber(ARGV[4])
local rank
if asc then
  rank = redis.call('ZRANK', KEYS[1], ARGV[1])
else
  rank = redis.call('ZREVRANK', KEYS[1], ARGV[1])
end
local size = redis.call('ZCARD', KEYS[1])
local filled = 1
if r == 1 and redis.call('GET', KEYS[2]) ~= 'done' then
  filled = 0
end
local participants = -1
if KEYS[2 + r] then
  participants = redis.call('PFCOUNT', KEYS[2 + r])
end
if not rank then
  return {-1, size, filled, participants}
end
local first = math.max(rank - n, 0)
local window
if asc then
  window = redis.call('ZRANGE', KEYS[1], first, rank + n, 'WITHSCORES')
else
  window = redis.call('ZREVRANGE', KEYS[1], first, rank + n, 'WITHSCORES')
end
local reply = {first, size, filled, participants}
for i = 1, #window do
  reply[#reply + 1] = window[i]
end
return reply
