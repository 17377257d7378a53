-- score.lua: apply a score write to the player's sub-board, at most once per
-- request id.
--
-- KEYS[1] -> <ns>:{L}:c:<Q>   period counters ('closed')
-- KEYS[2] -> <ns>:{L}:r:<b>   the player's record bucket
-- KEYS[3] -> <ns>:{L}:meta    'epoch'; 'op:<Q>', Q's score operator
-- KEYS[4] -> <ns>:{L}:q:<id>  the request's stored result (only with a request id)
-- last    -> <ns>:{L}:a:<Q>   the period's accepted writes per player (only with ARGV[18])
-- ARGV[1]  -> now in ms, or '' for Redis TIME
-- ARGV[2]  -> Q start (Unix s)   ARGV[3] -> Q end (Unix s)
-- ARGV[4]  -> key prefix <ns>:{L}:
-- ARGV[5]  -> player id
-- ARGV[6]  -> operator: incr | best | set, unless Q recorded its own ('op:<Q>')
-- ARGV[7]  -> value (integer)
-- ARGV[8]  -> the league's maximum score
-- ARGV[9]  -> board size  ARGV[10] -> slot bits  ARGV[11] -> time bits  ARGV[12] -> time unit (ms)
-- ARGV[13] -> idempotency window (ms)
-- ARGV[14] -> start of the period before Q
-- ARGV[15] -> the epoch the caller opened the league at
-- ARGV[16] -> the tier codes the caller knows, one byte each
-- ARGV[17] -> the most one write may add to a score (anti-cheat), '' for no cap
-- ARGV[18] -> the most writes a player may make in a period, '' for no cap
-- ARGV[19] -> the league's retention (ms): the attempts key expires that long after Q
--
-- Returns one of
--   {0, record, score, rank, size}  written (or unchanged): the player's 9-byte record
--                        (period, tier, join number), score, 1-based rank and board size
--   {1, record, score, rank, size}  a retry: the first write's result, unchanged
--   {2, now}             Q is not the period at Redis's now (ms): recompute and retry
--   {3, start}           the period starting at start (Unix s) has ended for the player:
--                        theirs is the one before Q, or Q is closed for settlement
--   {6}                  the player has not joined Q
--   {7, score, op}       the write would pass the maximum score; the current score and
--                        the operator applied
--   {8}                  the request id was used for another player
--   {11}                 the league's epoch is not ARGV[15]: the caller's tier codes may be
--                        stale (Redis lost the league, or a restore replaced it); nothing written
--   {13, tier}           the player is in a tier the caller's config lacks (its code is not
--                        in ARGV[16]): the caller could not describe the result; nothing written
--   {17, score, op}      the write would add more than ARGV[17]: the current score and the
--                        operator applied; nothing written
--   {18, used}           the player made ARGV[18] writes in Q already; nothing written
--
-- uses: rec_decode board_key here int now_ms tie_bits

if redis.call('HGET', KEYS[3], 'epoch') ~= ARGV[15] then
  return {11}
end
local player = ARGV[5]
local attempts = ARGV[18] ~= '' and KEYS[#KEYS]
local rid = #KEYS - (attempts and 1 or 0) >= 4 and KEYS[4]
if rid then
  -- stored: record (9 bytes) score:rank:size:player
  local stored = redis.call('GET', rid)
  if stored then
    local sc, rk, sz, who = string.match(stored, '^(%d+):(%d+):(%d+):(.*)$', 10)
    if who ~= player then
      return {8}
    end
    return {1, string.sub(stored, 1, 9), tonumber(sc), tonumber(rk), tonumber(sz)}
  end
end

local now = now_ms(ARGV[1])
local qs, qe = tonumber(ARGV[2]), tonumber(ARGV[3])
if now < qs * 1000 or now >= qe * 1000 then
  return {2, now}
end
if redis.call('HEXISTS', KEYS[1], 'closed') == 1 then
  return {3, qs}
end

local rec = redis.call('HGET', KEYS[2], player)
if not rec then
  return {6}
end
local s, t, n = rec_decode(rec)
if s ~= qs then
  if s == tonumber(ARGV[14]) then
    return {3, s}
  end
  return {6}
end
if not string.find(ARGV[16], string.char(t), 1, true) then
  return {13, t}
end

if attempts and tonumber(redis.call('HGET', attempts, player) or 0) >= tonumber(ARGV[18]) then
  return {18, tonumber(ARGV[18])}
end

local size, slot_bits, time_bits = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local board = math.ceil(n / size)
local bk = board_key(ARGV[4], qs, t, board)
here(bk, KEYS[2])
local shift = 2 ^ (time_bits + slot_bits)
-- The operator the period's first join recorded: replicas rolling out a new
-- score_operator never mix two in one period. A period begun by a version
-- that recorded none takes the one of its first write here (recorded below,
-- after the board's write: the first write touches the board).
local op_field = 'op:' .. qs
local recorded_op = redis.call('HGET', KEYS[3], op_field)
local op, value, max = recorded_op or ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8])
local score
if op == 'incr' and time_bits == 0 and max * 2 * shift < 2 ^ 53 then
  -- Join-order ties keep the low bits, so an increment is one ZADD INCR
  -- instead of ZSCORE + ZADD. Sums stay below 2^53, where doubles are exact,
  -- so a write past the maximum is undone exactly.
  if ARGV[17] ~= '' and value > tonumber(ARGV[17]) then
    -- the caller refuses these for an incr league; a period whose first
    -- join recorded incr under another configured operator lands here
    return {17, math.floor(tonumber(redis.call('ZSCORE', bk, player)) / shift), op}
  end
  score = math.floor(tonumber(redis.call('ZADD', bk, 'XX', 'INCR', value * shift, player)) / shift)
  if score > max then
    redis.call('ZADD', bk, 'XX', 'INCR', -value * shift, player)
    return {7, score - value, op}
  end
else
  local current = math.floor(tonumber(redis.call('ZSCORE', bk, player)) / shift)
  score = value
  if op == 'incr' then
    score = current + value
  elseif op == 'best' and current > value then
    score = current
  end
  if score > max then
    return {7, current, op}
  end
  if ARGV[17] ~= '' and score - current > tonumber(ARGV[17]) then
    return {17, current, op}
  end
  if score ~= current then
    local slot = n - (board - 1) * size
    local packed = score * shift + tie_bits(now, qe, tonumber(ARGV[12]), time_bits, slot_bits, size, slot)
    redis.call('ZADD', bk, packed, player)
  end
end

if not recorded_op then
  redis.call('HSETNX', KEYS[3], op_field, op)
end
local rank = redis.call('ZREVRANK', bk, player) + 1
local card = redis.call('ZCARD', bk)
if attempts and redis.call('HINCRBY', attempts, player, 1) == 1 then
  redis.call('PEXPIRE', attempts, qe * 1000 + tonumber(ARGV[19]) - now)
end
if rid then
  redis.call('SET', rid, rec .. int(score) .. ':' .. rank .. ':' .. card .. ':' .. player, 'PX', ARGV[13])
end
return {0, rec, score, rank, card}
