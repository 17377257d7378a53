-- moderate.lua: an operator's action on a player, and its record for the
-- audit, in one atomic step. hide, unhide, remove and set act on the
-- player's entry in the current period Q; ban and unban on their joins
-- (and, while they play Q, on their entry). The board re-ranks at once:
-- a player taken off it is no longer in its sorted set, so every read,
-- rank, zone and settlement of Q leaves them out; what their entry was is
-- kept in KEYS[4], so unhide (or unban) puts it back as it was.
--
-- KEYS[1] -> <ns>:{L}:c:<Q>   period counters ('closed')
-- KEYS[2] -> <ns>:{L}:r:<b>   the player's record bucket
-- KEYS[3] -> <ns>:{L}:meta    'epoch'
-- KEYS[4] -> <ns>:{L}:m:<Q>   players off Q's boards: player -> '<state>:<tier code>:<packed>',
--                             state h (hidden), r (removed) or b (taken off by a ban)
-- KEYS[5] -> <ns>:{L}:ban     banned players: player -> when the ban ends (ms)
-- KEYS[6] -> <ns>:{L}:y       admin actions waiting to be recorded in the store (a stream)
-- ARGV[1]  -> now in ms, or '' for Redis TIME
-- ARGV[2]  -> Q start (Unix s)   ARGV[3] -> Q end (Unix s)
-- ARGV[4]  -> key prefix <ns>:{L}:
-- ARGV[5]  -> player id
-- ARGV[6]  -> hide | unhide | remove | set-score | ban | unban
-- ARGV[7]  -> the epoch the caller opened the league at
-- ARGV[8]  -> board size
-- ARGV[9]  -> 2^(time bits + slot bits): a packed score is score * this + tie bits
-- ARGV[10] -> set-score: the new score (0..max, checked by the caller)
-- ARGV[11] -> ban: when it ends (ms), or ''   ARGV[12] -> ban: its length (ms) from now, or ''
-- ARGV[13] -> who acts (the admin key's name)   ARGV[14] -> why (required)
--
-- Also writes the board of the player's record in Q (found from the record).
--
-- Returns one of
--   {0, changed, state before, state after, score before, score after, ban before, ban after,
--    id, now, period}
--                 done (changed 1: the stream entry id names its record) or nothing to do
--                 (changed 0: so already; nothing written, nothing recorded). States:
--                 ranked, hidden, removed, banned (taken off Q's board by a ban), absent
--                 (not in Q); scores '' when absent; bans: when they end (ms), '' for none;
--                 period: Q's start, '' when the player is not in Q
--   {2, now}      Q is not the period at Redis's now (ms): recompute and retry
--   {3}           Q is closed for settlement
--   {6, start}    hide, unhide, remove, set-score: the player is not in Q (their last period
--                 starts at start)
--   {11}          the league's epoch is not ARGV[7]; nothing written
--   {23}          the player never joined the league
--   {24, state}   the action cannot apply to a player in that state (a removed player
--                 stays removed; one taken off by a ban comes back with unban)
--   {25, now}     ban: ARGV[11] is not after now (ms)
--   {26}          the player is in Q but neither on their board nor taken off it: the
--                 board is lost; nothing written
--
-- uses: rec_decode board_key moderation_key here int now_ms

if redis.call('HGET', KEYS[3], 'epoch') ~= ARGV[7] then
  return {11}
end
local now = now_ms(ARGV[1])
local qs, qe = tonumber(ARGV[2]), tonumber(ARGV[3])
if now < qs * 1000 or now >= qe * 1000 then
  return {2, now}
end
if redis.call('HEXISTS', KEYS[1], 'closed') == 1 then
  return {3}
end
local player, action = ARGV[5], ARGV[6]
local rec = redis.call('HGET', KEYS[2], player)
if not rec then
  return {23}
end
local s, t, n = rec_decode(rec)
local inq = s == qs
if not inq and action ~= 'ban' and action ~= 'unban' then
  return {6, s}
end

local shift = tonumber(ARGV[9])
-- state: k (ranked, on the board), h, r, b; nil when not in Q
local bk, state, packed
if inq then
  bk = board_key(ARGV[4], qs, t, math.ceil(n / tonumber(ARGV[8])))
  here(bk, KEYS[1])
  local m = redis.call('HGET', KEYS[4], player)
  if m then
    local st, p = string.match(m, '^(%a):%d+:(%d+)$')
    state, packed = st, tonumber(p)
  else
    local z = redis.call('ZSCORE', bk, player)
    if not z then
      return {26}
    end
    state, packed = 'k', tonumber(z)
  end
end
local stored_ban = redis.call('HGET', KEYS[5], player)
stored_ban = stored_ban and tonumber(stored_ban)
local ban = nil
if stored_ban and stored_ban > now then
  ban = stored_ban
end

local names = {k = 'ranked', h = 'hidden', r = 'removed', b = 'banned'}
local nstate, npacked, nban = state, packed, ban
if action == 'hide' then
  if state == 'r' then return {24, names[state]} end
  nstate = 'h'
elseif action == 'unhide' then
  if state == 'r' or state == 'b' then return {24, names[state]} end
  nstate = 'k'
elseif action == 'remove' then
  nstate = 'r'
elseif action == 'set-score' then
  if state == 'r' then return {24, names[state]} end
  -- the tie bits (join order, time reached) stay: shift is a power of two,
  -- so this arithmetic on doubles below 2^53 is exact
  npacked = tonumber(ARGV[10]) * shift + packed % shift
elseif action == 'ban' then
  local ends
  if ARGV[11] ~= '' then
    ends = tonumber(ARGV[11])
  else
    ends = now + tonumber(ARGV[12])
  end
  if ends <= now then
    return {25, now}
  end
  nban = ends
  if state == 'k' then nstate = 'b' end
elseif action == 'unban' then
  nban = nil
  if state == 'b' then nstate = 'k' end
end

if inq and (nstate ~= state or npacked ~= packed) then
  if nstate == 'k' then
    if state ~= 'k' then
      redis.call('HDEL', KEYS[4], player)
    end
    redis.call('ZADD', bk, npacked, player)
  else
    if state == 'k' then
      redis.call('ZREM', bk, player)
    end
    redis.call('HSET', KEYS[4], player, nstate .. ':' .. t .. ':' .. int(npacked))
  end
end
if nban ~= stored_ban then
  -- also drops a ban that ended by itself
  if nban then
    redis.call('HSET', KEYS[5], player, int(nban))
  else
    redis.call('HDEL', KEYS[5], player)
  end
end

local function name(st)
  return names[st] or 'absent'
end
local function score(p)
  if p then return int(math.floor(p / shift)) end
  return ''
end
local function ms(b)
  if b then return int(b) end
  return ''
end
local period = ''
if inq then period = int(qs) end
local out = {0, 0, name(state), name(nstate), score(packed), score(npacked), ms(ban), ms(nban), '', int(now), period}
if nstate == state and npacked == packed and nban == ban then
  return out
end
out[2] = 1
out[9] = redis.call('XADD', KEYS[6], '*', 'action', action, 'player', player, 'period', period, 'at', int(now),
  'actor', ARGV[13], 'reason', ARGV[14], 'state_before', out[3], 'state_after', out[4],
  'score_before', out[5], 'score_after', out[6], 'ban_before', out[7], 'ban_after', out[8])
return out
