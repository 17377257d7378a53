-- score.lua: apply a score write to the player's sub-board, at most once per
-- request id.
--
-- KEYS[1] -> <ns>:{L}:c:<Q>   period counters ('closed')
-- KEYS[2] -> <ns>:{L}:r:<b>   the player's record bucket
-- KEYS[3] -> <ns>:{L}:meta    'epoch'; 'op:<Q>', Q's score operator
-- then, in this order, those the write needs:
--   <ns>:{L}:q:<scope>:<id>   the request's stored result (ARGV[20] = '1')
--   <ns>:{L}:a:<Q>            the period's writes per player (ARGV[18])
--   <ns>:{L}:h:<Q>            the period's held writes (ARGV[21]): 'seq', the last id given,
--                             and per id '<ms>:<value>:<cap>:<player>'
--   the rate limits' counters, ARGV[24] of them (common.lua's limits)
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
-- ARGV[19] -> the league's retention (ms): the attempts and held keys expire that long after Q
-- ARGV[20] -> '1' with a request id
-- ARGV[21] -> '' | 'hold': a write past a gain cap is held, not refused |
--             'approve': apply held write ARGV[22] (its value; no cap, limit or attempt applies)
-- ARGV[22] -> with 'hold', the caps' names: 'max_gain', then each gain limit's, spaces between;
--             with 'approve', the held write's id
-- ARGV[23] -> '1': the caller shows no rank, so none is computed (no ZREVRANK, no ZCARD): the
--             reply's rank and size are 0, and so is what a retry of this request id answers
-- ARGV[24] -> r, the number of rate limits, then four each (common.lua's limits): the player's
--             and the key's write limits ('write') and the player's gain limits ('gain')
-- ARGV[25 + 4r] -> with min_board_size (tiers/merge.go), two bytes (big endian) per tier code:
--             its min_board_size, 0 for none; absent when no tier has one
-- ARGV[26 + 4r] -> with ARGV[25 + 4r] in a league with cohorts: each tier's board codes in tie
--             order (shared boards first, then its cohorts'), a 255 byte after each tier's
--             (common.lua's seqs_of, group_at)
--
-- Returns one of
--   {0, record, score, rank, size}  written (or unchanged): the player's 9-byte record
--                        (period, tier, join number), score, 1-based rank and board size
--                        (rank and size 0 with ARGV[23]); for a ranked write in a tier with
--                        min_board_size, then {partner, partner size, own size, ahead}
--                        (common.lua's merge_at; all 0 when the board is decided alone), and in
--                        a tier with cohorts then the code and number of each board of its
--                        merge in tie order (group_at)
--   {1, record, score, rank, size}  a retry: the first write's result, unchanged (rank and size
--                        0 when the first write asked for none, whatever ARGV[23] says now)
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
--   {16, l, end}         write limit l is reached; its window ends at end (ms, -1: never);
--                        nothing written, nothing consumed
--   {17, score, op, c}   the write would gain more than cap c allows (0: ARGV[17], the most
--                        one write may add; l: gain limit l, whose window ends at ARGV's):
--                        the current score and the operator applied; nothing written
--   {18, used}           the player made ARGV[18] writes in Q already; nothing written
--   {19, record, score, rank, size, id, cap, replayed}  held for an operator (ARGV[21] = 'hold'):
--                        not ranked; the player's unchanged standing, the held write's id in
--                        Q, the cap it passed, and 1 for a retry's stored answer
--   {20}                 approve: no held write ARGV[22] of this player in Q (decided already)
--   {22, moderated}      the player is not on their board: an operator took them off it
--                        (moderated: their entry in Q's moderation hash, moderate.lua), or,
--                        with moderated '', the board is lost; nothing written, nothing consumed
--
-- uses: rec_decode board_key here int now_ms tie_bits limits merge_at group_at seqs_of

-- The epoch and the operator Q's first join recorded ('op:<Q>'), in one
-- read: every write needs both.
local op_field = 'op:' .. ARGV[2]
local meta = redis.call('HMGET', KEYS[3], 'epoch', op_field)
if meta[1] ~= ARGV[15] then
  return {11}
end
local player = ARGV[5]
local k = 4
local rid, attempts, held
if ARGV[20] == '1' then rid, k = KEYS[k], k + 1 end
if ARGV[18] ~= '' then attempts, k = KEYS[k], k + 1 end
if ARGV[21] ~= '' then held, k = KEYS[k], k + 1 end
local nl = tonumber(ARGV[24])
if rid then
  -- stored: record (9 bytes) score:rank:size:player, after 'h<id> <cap> ' when held;
  -- rank and size 0 when the first write asked for none (ARGV[23])
  local stored = redis.call('GET', rid)
  if stored then
    local id, cap, at = string.match(stored, '^h(%d+) (%S+) ()')
    local rec = string.sub(stored, at or 1, (at or 1) + 8)
    local sc, rk, sz, who = string.match(stored, '^(%d+):(%d+):(%d+):(.*)$', (at or 1) + 9)
    if who ~= player then
      return {8}
    end
    if id then
      return {19, rec, tonumber(sc), tonumber(rk), tonumber(sz), tonumber(id), cap, 1}
    end
    return {1, rec, tonumber(sc), tonumber(rk), tonumber(sz)}
  end
end

local now = now_ms(ARGV[1])
local qs, qe = tonumber(ARGV[2]), tonumber(ARGV[3])
if now < qs * 1000 or now >= qe * 1000 then
  return {2, now}
end
-- The record is read before the closed mark, which is still answered
-- first: a ranked write in a tier with min_board_size then reads the tier's
-- joins (merge_at's first question, below) with the mark, in one call.
local rec = redis.call('HGET', KEYS[2], player)
local s, t, n, min, joins
if rec then
  s, t, n = rec_decode(rec)
  local mins = ARGV[25 + 4 * nl]
  if ARGV[23] ~= '1' and mins and #mins >= 2 * t + 2 then
    min = string.byte(mins, 2 * t + 1) * 256 + string.byte(mins, 2 * t + 2)
  end
end
local closed
if min and min > 0 then
  local c = redis.call('HMGET', KEYS[1], 'closed', t)
  closed, joins = c[1], c[2] or '0'
else
  closed = redis.call('HEXISTS', KEYS[1], 'closed') == 1
end
if closed then
  return {3, qs}
end
if not rec then
  return {6}
end
if s ~= qs then
  if s == tonumber(ARGV[14]) then
    return {3, s}
  end
  return {6}
end
if not string.find(ARGV[16], string.char(t), 1, true) then
  return {13, t}
end

local value = tonumber(ARGV[7])
if ARGV[21] == 'approve' then
  local entry = redis.call('HGET', held, ARGV[22])
  local v, who = string.match(entry or '', '^%d+:(%d+):[^:]*:(.*)$')
  if who ~= player then
    return {20}
  end
  value = tonumber(v)
end
if attempts and tonumber(redis.call('HGET', attempts, player) or 0) >= tonumber(ARGV[18]) then
  return {18, tonumber(ARGV[18])}
end
if nl > 0 then
  local over = limits_over(k, 25, nl, 'write', 1, now)
  if over < 0 then
    return {2, now}
  elseif over > 0 then
    return {16, over, tonumber(ARGV[25 + 4 * over - 2]) or -1}
  end
end

local size, slot_bits, time_bits = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local board = math.ceil(n / size)
-- bk is not in KEYS, and no here() guards it before its first use: the
-- first command that names it (ZADD XX or ZSCORE) writes nothing where it
-- is missing, and a found board is on this node (Redis moves a key whole),
-- so only a write that finds no board asks here(), below, whether Redis
-- Cluster is migrating the slot. That saves an EXISTS on every write.
local bk = board_key(ARGV[4], qs, t, board)
local shift = 2 ^ (time_bits + slot_bits)

-- The player's rank and the board's size, unless the caller shows no rank
-- (ARGV[23]): the two reads are most of what a plain write costs Redis
-- past the write itself. (Inlined where used, not a function: Lua builds a
-- closure for each definition on every call.)
local rank_wanted = ARGV[23] ~= '1'

-- The guards' functions, defined only for a league that has guards: Lua
-- builds a closure for each definition on every call, which a plain
-- write should not pay for.
local guarded = nl > 0 or attempts or ARGV[17] ~= ''
local consumed, capped, stop
if guarded then
  -- The write is allowed: consume the write limits and the attempt (also
  -- when it is held, as it was made), then the gain limits with what it
  -- gained.
  consumed = function(gain)
    limits_take(k, 25, nl, nil, gain, now)
    if attempts and redis.call('HINCRBY', attempts, player, 1) == 1 then
      redis.call('PEXPIRE', attempts, qe * 1000 + tonumber(ARGV[19]) - now)
    end
  end

  -- capped returns the cap a gain passes: 0 for ARGV[17], l for gain limit
  -- l, nil for none, or -1 when a gain limit's window is not Redis's now.
  capped = function(gain)
    if ARGV[17] ~= '' and gain > tonumber(ARGV[17]) then
      return 0
    end
    local l = limits_over(k, 25, nl, 'gain', gain, now)
    if l ~= 0 then return l end
  end

  -- stop answers a write past cap c: held where the league holds them
  -- (ARGV[21]), else refused.
  stop = function(c, current, op)
    if c < 0 then
      return {2, now}
    elseif held == nil or ARGV[21] ~= 'hold' then
      return {17, current, op, c}
    end
    local names = {}
    for name in string.gmatch(ARGV[22], '%S+') do names[#names + 1] = name end
    local cap = names[c + 1]
    local id = redis.call('HINCRBY', held, 'seq', 1)
    if id == 1 then
      redis.call('PEXPIRE', held, qe * 1000 + tonumber(ARGV[19]) - now)
    end
    redis.call('HSET', held, id, now .. ':' .. value .. ':' .. cap .. ':' .. player)
    consumed(0)
    local rank, card = 0, 0
    if rank_wanted then
      rank, card = redis.call('ZREVRANK', bk, player) + 1, redis.call('ZCARD', bk)
    end
    if rid then
      redis.call('SET', rid, 'h' .. id .. ' ' .. cap .. ' ' .. rec .. int(current) .. ':' .. rank .. ':' .. card .. ':' .. player, 'PX', ARGV[13])
    end
    return {19, rec, current, rank, card, id, cap, 0}
  end
end

-- The operator the period's first join recorded: replicas rolling out a new
-- score_operator never mix two in one period. A period begun by a version
-- that recorded none takes the one of its first write here (recorded below,
-- after the board's write: the first write touches the board).
local recorded_op = meta[2]
local op, max = recorded_op or ARGV[6], tonumber(ARGV[8])
local score, gain
if op == 'incr' and time_bits == 0 and max * 2 * shift < 2 ^ 53 then
  -- Join-order ties keep the low bits, so an increment is one ZADD INCR
  -- instead of ZSCORE + ZADD. Sums stay below 2^53, where doubles are exact,
  -- so a write past the maximum is undone exactly.
  local c = guarded and capped(value)
  if c then
    local z = redis.call('ZSCORE', bk, player)
    if not z then
      local mk = ARGV[4] .. 'm:' .. qs -- moderation_key, inlined: no closure on every write
      here(bk, mk, KEYS[2]) -- mid-migration, the board may be on the other node
      return {22, redis.call('HGET', mk, player) or ''}
    end
    return stop(c, math.floor(tonumber(z) / shift), op)
  end
  local z = redis.call('ZADD', bk, 'XX', 'INCR', value * shift, player)
  if not z then
    -- not on the board: taken off it by an operator (moderate.lua), or,
    -- while Redis Cluster migrates the slot, the board is still on the
    -- other node (here() fails then); a plain write never comes here
    local mk = ARGV[4] .. 'm:' .. qs -- moderation_key, inlined: no closure on every write
    here(bk, mk, KEYS[2]) -- mid-migration, the board may be on the other node
    return {22, redis.call('HGET', mk, player) or ''}
  end
  score = math.floor(tonumber(z) / shift)
  if score > max then
    redis.call('ZADD', bk, 'XX', 'INCR', -value * shift, player)
    return {7, score - value, op}
  end
  gain = value
else
  local z = redis.call('ZSCORE', bk, player)
  if not z then
    local mk = ARGV[4] .. 'm:' .. qs -- moderation_key, inlined: no closure on every write
    here(bk, mk, KEYS[2]) -- mid-migration, the board may be on the other node
    return {22, redis.call('HGET', mk, player) or ''}
  end
  local current = math.floor(tonumber(z) / shift)
  score = value
  if op == 'incr' then
    score = current + value
  elseif op == 'best' and current > value then
    score = current
  end
  if score > max then
    return {7, current, op}
  end
  gain = score - current
  local c = guarded and capped(gain)
  if c then
    return stop(c, current, op)
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
local rank, card = 0, 0
if rank_wanted then
  rank, card = redis.call('ZREVRANK', bk, player) + 1, redis.call('ZCARD', bk)
end
if ARGV[21] == 'approve' then
  redis.call('HDEL', held, ARGV[22])
elseif guarded then
  consumed(gain)
end
if rid then
  redis.call('SET', rid, rec .. int(score) .. ':' .. rank .. ':' .. card .. ':' .. player, 'PX', ARGV[13])
end
if min and min > 0 then
  -- the tier's min_board_size: where the board stands in a merge, in this
  -- round trip rather than a second (merged.lua's question); the tier's
  -- joins were read above (a score write does not change them), which a
  -- tier without cohorts hands merge_at; group_at reads its cohorts' own
  local seqs = ''
  if ARGV[26 + 4 * nl] then
    seqs = seqs_of(ARGV[26 + 4 * nl], t)
  end
  local m
  if #seqs > 1 then
    m = group_at(ARGV[4], qs, t, board, KEYS[1], size, min, int(score * shift), int((score + 1) * shift), seqs)
  else
    m = merge_at(ARGV[4], qs, t, board, KEYS[1], size, min, int(score * shift), int((score + 1) * shift), joins)
  end
  local out = {0, rec, score, rank, card, 0, 0, 0, 0}
  for i, v in ipairs(m or {}) do
    out[5 + i] = v
  end
  return out
end
return {0, rec, score, rank, card}
