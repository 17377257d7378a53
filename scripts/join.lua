-- join.lua: place a player in their tier's current sub-board, once per period,
-- and hand over the rewards they earned in an earlier period, once.
--
-- KEYS[1] -> <ns>:{L}:c:<Q>   period counters (HINCRBY placement; 'closed')
-- KEYS[2] -> <ns>:{L}:r:<b>   the player's record bucket
-- KEYS[3] -> <ns>:{L}:w:<b>   the player's reward bucket
-- KEYS[4] -> <ns>:{L}:k:<Q>   rewards claimed by joins of period Q (for retries)
-- KEYS[5] -> <ns>:{L}:meta    'settled' = last period whose tiers are applied;
--                              'epoch' = the league's data generation (Open);
--                              'op:<Q>' = Q's score operator (kept out of the counters,
--                              which versions before it read as tier counts)
-- KEYS[6] -> <ns>:{L}:periods periods holding players, to settle
-- KEYS[7] -> <ns>:{L}:x       claims stream, recorded in Postgres later: reward
--                              deliveries, and tier moves by absence decay
-- KEYS[8] -> <ns>:{L}:played  starts of the latest periods anyone joined
-- KEYS[9] -> <ns>:{L}:ban     banned players: player -> when the ban ends (ms; moderate.lua)
-- KEYS[10] -> <ns>:{L}:pp:<Q> players promoted into their tier of Q; given, with ARGV[25],
--             only when a tier of the league protects promoted players
-- ARGV[1]  -> now in ms, or '' for Redis TIME
-- ARGV[2]  -> Q start (Unix s)          ARGV[3] -> Q end (Unix s)
-- ARGV[4]  -> key prefix <ns>:{L}:
-- ARGV[5]  -> player id                 ARGV[6] -> profile: name \x1f avatar
-- ARGV[7]  -> board size  ARGV[8] -> slot bits  ARGV[9] -> time bits  ARGV[10] -> time unit (ms)
-- ARGV[11] -> entry tier code
-- ARGV[12] -> start of the period before Q
-- ARGV[13] -> '0' when absence decay is off; else how many periods KEYS[8] keeps
-- ARGV[14] -> tier code decided by the caller, or ''
-- ARGV[15] -> with ARGV[14]: the record the caller decided from ('' for none)
-- ARGV[16] -> with ARGV[14]: start of the period whose rewards the caller computed, or ''
-- ARGV[17] -> with ARGV[16]: those rewards as JSON
-- ARGV[18] -> the epoch the caller opened the league at
-- ARGV[19] -> with ARGV[14]: the fingerprint of the ladder rules the caller decided the
--             record's period under, or '' when no rule decided it
--
-- ARGV[20] -> the caller's score operator, recorded as the period's by its first join
-- ARGV[21] -> with a join_cutoff, the instant (ms) from which joins go to Q though it has
--             not started ('': Q's start); ARGV[12] is then the period still running
-- ARGV[22] -> with ARGV[14], when absence decay lowered the tier decided: the tier id
--             before decay ('' for none); ARGV[23] -> the tier id after;
--             ARGV[24] -> how many periods the player sat out
-- ARGV[25] -> with KEYS[10]: one byte per tier code, its ladder position + 1 (0: unknown):
--             a join placing the player above the tier of the period they last played
--             adds them to KEYS[10]
-- ARGV[26] -> with cohorts (league/cohort.go; ARGV[25] is then '' when no tier protects):
--             one byte per code, the tier code of the code's boards (a cohort's code ->
--             its tier's; 255 for a code the caller lacks): the tier a record played in
-- ARGV[27] -> with ARGV[26]: one byte per tier code, the code of its boards of the join's
--             cohort (its own code for the shared boards): where the join places the player
--
-- Also writes keys of the league's hash tag it finds from the above: Q's board and
-- names, and with ARGV[14] the counters of the record's period ('ladder', 'closed').
--
-- Returns one of
--   {0, code, n, rewards}  joined now: the code of the boards (tier, or tier and cohort),
--                          join number on them, rewards delivered
--                          ('' or lines of '<earned start>|<items JSON>')
--   {1, tier, n, rewards}  joined earlier this period: the first placement and rewards
--   {2, now}               Q is not the period at Redis's now (ms): recompute and retry
--   {3}                    Q is closed for settlement
--   {4, record, rank, size, score, settled, rules}
--                          the caller must decide the tier (settlement has not reached
--                          the player's last period, or decay applies): rank, size and
--                          packed score on that period's board (rank -1 if it is gone,
--                          -2 if an operator took the player off it: moderate.lua),
--                          and the fingerprint of the rules that period is decided
--                          under ('' while no decision recorded one)
--   {5}                    the record changed while the caller decided: retry
--   {9}                    the tier has placed 2^24-1 players this period
--   {12}                   the record's period is decided under other rules than
--                          ARGV[19] (recorded since the caller asked): decide again
--   {11}                   the league's epoch is not ARGV[18]: Redis lost the data the
--                          caller opened (or a restore replaced it); nothing written
--   {21, ends}             the player is banned until ends (ms); nothing written (a ban
--                          that has ended is dropped)
--   {27, tier, n, rewards} before Q starts (ARGV[21]): the player joined the running period
--                          already, and stays in it: its first placement and rewards
--
-- uses: NO_TIER rec_decode rec_encode board_key names_key counters_key claimed_key moderation_key here now_ms tie_bits

local now = now_ms(ARGV[1])
local qs, qe = tonumber(ARGV[2]), tonumber(ARGV[3])
local opens = qs * 1000
if ARGV[21] ~= '' then
  opens = tonumber(ARGV[21])
end
if now < opens or now >= qe * 1000 then
  return {2, now}
end
-- A Redis that lost the league (restarted without persistence, flushed)
-- would otherwise place every returning player in the entry tier, and the
-- next settlement would make that their tier in the store too.
-- 'settled' is read with the epoch, in one call: a returning player's join
-- needs it to know whether their last period is decided.
local meta = redis.call('HMGET', KEYS[5], 'epoch', 'settled')
if meta[1] ~= ARGV[18] then
  return {11}
end
if redis.call('HEXISTS', KEYS[1], 'closed') == 1 then
  return {3}
end

local prefix, player, profile = ARGV[4], ARGV[5], ARGV[6]
local size = tonumber(ARGV[7])
local ban = redis.call('HGET', KEYS[9], player)
if ban then
  if tonumber(ban) > now then
    return {21, tonumber(ban)}
  end
  redis.call('HDEL', KEYS[9], player)
end
local rec = redis.call('HGET', KEYS[2], player)

if rec then
  local s, t, n = rec_decode(rec)
  if s == qs then
    -- A retry or a racing duplicate: the first placement stands. The cached
    -- name and avatar follow the latest join.
    local nk = names_key(prefix, qs, t, math.ceil(n / size))
    here(nk, KEYS[2])
    redis.call('HSET', nk, player, profile)
    return {1, t, n, redis.call('HGET', KEYS[4], player) or ''}
  elseif now < qs * 1000 and s == tonumber(ARGV[12]) then
    -- Joined the period still running: the cutoff sends new players to
    -- the next one, not those already playing.
    local ck = claimed_key(prefix, s)
    here(ck, KEYS[2])
    return {27, t, n, redis.call('HGET', ck, player) or ''}
  end
end

local tier
local decided_in -- the counters key of the period this decision records its rules in
local frozen     -- the counters key of the period this decision read the board of
if ARGV[14] ~= '' then
  if (rec or '') ~= ARGV[15] then
    return {5}
  end
  local ck = rec and counters_key(prefix, rec_decode(rec))
  if ck and here(ck, KEYS[2]) == 2 then
    -- The decision read that period's board as final: it is closed here,
    -- as settlement's close would, so that a Redis clock stepping back
    -- (a failover to a replica behind) cannot reopen it to writes the
    -- decision did not see.
    frozen = ck
  end
  if ARGV[19] ~= '' and ck then
    -- The first decision of a period records the rules it used (below, with
    -- the join's other writes); settlement and every later join decide that
    -- period under them too.
    local rules = redis.call('HGET', ck, 'ladder')
    if not rules and frozen then
      decided_in = ck
    elseif rules and rules ~= ARGV[19] then
      return {12}
    end
  end
  tier = tonumber(ARGV[14])
elseif not rec then
  tier = tonumber(ARGV[11])
else
  local s, t, n, nx = rec_decode(rec)
  local settled = tonumber(meta[2] or '0')
  local played_last = (s == tonumber(ARGV[12]))
  if (nx ~= NO_TIER or settled >= s) and (played_last or ARGV[13] == '0') then
    if nx ~= NO_TIER then
      tier = nx
    else
      -- a cohort's code: its tier's (NO_TIER: a code this config lacks)
      local b = ARGV[26] and string.byte(ARGV[26], t + 1)
      if b and b ~= NO_TIER then tier = b else tier = t end
    end
  else
    local bk, ck = board_key(prefix, s, t, math.ceil(n / size)), counters_key(prefix, s)
    here(bk, ck, KEYS[2])
    local rank = redis.call('ZREVRANK', bk, player)
    if rank then
      return {4, rec, rank + 1, redis.call('ZCARD', bk), redis.call('ZSCORE', bk, player), settled,
        redis.call('HGET', ck, 'ladder') or ''}
    end
    local mk = moderation_key(prefix, s)
    here(mk, KEYS[2])
    if redis.call('HEXISTS', mk, player) == 1 then
      return {4, rec, -2, 0, '', settled, ''}
    end
    return {4, rec, -1, 0, '', settled, ''}
  end
end

-- The boards of the join's cohort in the tier decided (cohorts: one code
-- each, counted and keyed as a tier's own boards are).
local place = tier
if ARGV[27] and ARGV[27] ~= '' then
  place = string.byte(ARGV[27], tier + 1) or tier
end
local joined = tonumber(redis.call('HGET', KEYS[1], place) or '0')
if joined >= 16777215 then
  return {9}
end
-- The board and names keys are not in KEYS (the board follows from the
-- counter): looked up before the first write, so that while Redis Cluster
-- migrates the league's slot the script fails here, with nothing written,
-- not halfway through the join.
local board = math.ceil((joined + 1) / size)
local bk, nk = board_key(prefix, qs, place, board), names_key(prefix, qs, place, board)
here(bk, nk, KEYS[1])
if decided_in then
  redis.call('HSET', decided_in, 'ladder', ARGV[19])
end
if frozen then
  redis.call('HSET', frozen, 'closed', '1')
end

-- Rewards: settlement leaves '<E>|p|<items>' (pending); the join that delivers
-- them leaves '<E>|c|<Q>' (claimed), which settlement never overwrites.
local delivered = {}
local w = redis.call('HGET', KEYS[3], player)
local w_start = 0
if w then
  local e, state, rest = string.match(w, '^(%d+)|(%a)|(.*)$')
  w_start = tonumber(e)
  if state == 'p' then
    table.insert(delivered, e .. '|' .. rest)
    redis.call('HSET', KEYS[3], player, e .. '|c|' .. qs)
  end
end
if ARGV[16] ~= '' and tonumber(ARGV[16]) > w_start then
  -- Rewards of a period settlement has not applied yet, computed by the
  -- caller from the frozen board: claimed here, so settlement skips them.
  table.insert(delivered, ARGV[16] .. '|' .. ARGV[17])
  redis.call('HSET', KEYS[3], player, ARGV[16] .. '|c|' .. qs)
end

local n = redis.call('HINCRBY', KEYS[1], place, 1)
if n == 1 then
  -- The first join of each tier; the period's first of all records the
  -- score operator its writes use, whichever replica serves them.
  redis.call('HSETNX', KEYS[5], 'op:' .. qs, ARGV[20])
  redis.call('ZADD', KEYS[6], 'NX', qs, qs)
  if ARGV[13] ~= '0' then
    -- Decay counts the periods somebody played, not an outage's.
    if redis.call('ZADD', KEYS[8], 'NX', qs, qs) == 1 then
      redis.call('ZREMRANGEBYRANK', KEYS[8], 0, -tonumber(ARGV[13]) - 1)
    end
  end
end
local slot = n - (board - 1) * size -- n is joined + 1: the board touched above
-- an early join (the cutoff) counts its time from Q's start
local packed = tie_bits(math.max(now, qs * 1000), qe, tonumber(ARGV[10]), tonumber(ARGV[9]), tonumber(ARGV[8]), size, slot)
redis.call('ZADD', bk, packed, player)
redis.call('HSET', nk, player, profile)
redis.call('HSET', KEYS[2], player, rec_encode(qs, place, n, NO_TIER))
if KEYS[10] and rec then
  -- Promotion protection (league/protect.go): the live zones and settlement
  -- of Q ask KEYS[10] who was promoted into their tier of Q.
  local _, played = rec_decode(rec)
  local from, to = string.byte(ARGV[25], played + 1), string.byte(ARGV[25], tier + 1)
  if from and to and from > 0 and to > from then
    redis.call('SADD', KEYS[10], player)
  end
end

if ARGV[22] ~= '' then
  -- The decay happens with the placement, so its record does too.
  redis.call('XADD', KEYS[7], '*', 'player', player, 'period', qs, 'at', now,
    'decay_from', ARGV[22], 'decay_to', ARGV[23], 'absent', ARGV[24])
end

local rewards = ''
if #delivered > 0 then
  rewards = table.concat(delivered, '\n')
  redis.call('HSET', KEYS[4], player, rewards)
  for _, d in ipairs(delivered) do
    local e, items = string.match(d, '^(%d+)|(.*)$')
    redis.call('XADD', KEYS[7], '*', 'player', player, 'earned', e, 'period', qs, 'at', now, 'items', items)
  end
end
return {0, place, n, rewards}
