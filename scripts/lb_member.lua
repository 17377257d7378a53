-- lb_member.lua: one member on every board of a leaderboard, read in one
-- round trip: score, rank and the gap to the member ranked just above, on
-- each board; and the member's score and rank on the board of the period
-- before (read only). Several members: one call each, pipelined.
--
-- KEYS[2i-1] -> board i of the current period
-- KEYS[2i]   -> board i of the period before (all time: the same key again)
-- ARGV[1] -> member
-- ARGV[2] -> order: desc | asc
-- ARGV[3] -> r, the number of rolling boards among them
-- ARGV[i + 3] -> board i's tie bits (the packed score is score * 2^bits + tie)
-- and after the 2m board keys, one key per rolling board among them, in
-- their order: its pre-fill's progress, 'done' once filled; then one key
-- per board that counts participants: the member's HyperLogLog
--
-- Returns, per board i, five values from reply[5(i-1) + 1]:
--   score, rank (0: not on the board), gap to the member above (-1: none
--   above, or not on the board), previous score, previous rank (0: absent)
-- then per rolling board, 1 when it is filled, 0 when not yet; then per
-- participant count, the member's distinct actors
--
-- uses: (no helpers)

local member, asc = ARGV[1], ARGV[2] == 'asc'
local reply = {}

local function place(key, shift)
  local packed = redis.call('ZSCORE', key, member)
  if not packed then
    return 0, 0, -1
  end
  packed = tonumber(packed)
  local rank
  if asc then
    rank = redis.call('ZRANK', key, member)
  else
    rank = redis.call('ZREVRANK', key, member)
  end
  local score, gap = math.floor(packed / shift), -1
  if rank > 0 then
    local above
    if asc then
      above = redis.call('ZRANGE', key, rank - 1, rank - 1, 'WITHSCORES')
    else
      above = redis.call('ZREVRANGE', key, rank - 1, rank - 1, 'WITHSCORES')
    end
    gap = math.abs(math.floor(tonumber(above[2]) / shift) - score)
  end
  return score, rank + 1, gap
end

local m, r = #ARGV - 3, tonumber(ARGV[3])
for i = 1, m do
  local shift = 2 ^ tonumber(ARGV[i + 3])
  local score, rank, gap = place(KEYS[2 * i - 1], shift)
  local prev_score, prev_rank = place(KEYS[2 * i], shift)
  reply[#reply + 1] = score
  reply[#reply + 1] = rank
  reply[#reply + 1] = gap
  reply[#reply + 1] = prev_score
  reply[#reply + 1] = prev_rank
end
for k = 2 * m + 1, 2 * m + r do
  if redis.call('GET', KEYS[k]) == 'done' then
    reply[#reply + 1] = 1
  else
    reply[#reply + 1] = 0
  end
end
for k = 2 * m + r + 1, #KEYS do
  reply[#reply + 1] = redis.call('PFCOUNT', KEYS[k])
end
return reply
