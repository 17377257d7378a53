-- common.lua: helpers the scripts share. scripts.go prepends to each script
-- only the helpers its "-- uses:" line names: Lua builds a closure for every
-- function a script defines, on every call, and unused ones cost time.
-- Sections start with "--- <name>". Mirrors league/record.go (the 9-byte
-- player record) and league/keys.go (the keys a script names only once it
-- has read a record).

--- NO_TIER
local NO_TIER = 255

--- rec_decode
-- record: start(4, big endian) tier(1) n(3) next(1)
local function rec_decode(r)
  local b1, b2, b3, b4, t, n1, n2, n3, nx = string.byte(r, 1, 9)
  return ((b1 * 256 + b2) * 256 + b3) * 256 + b4, t, (n1 * 256 + n2) * 256 + n3, nx
end

--- rec_encode
local function rec_encode(s, t, n, nx)
  return string.char(math.floor(s / 16777216) % 256, math.floor(s / 65536) % 256,
    math.floor(s / 256) % 256, s % 256, t,
    math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256, nx)
end

--- board_key
-- Period starts, tier codes and board numbers are integers below 1e14,
-- which Lua's number-to-string prints exactly (it uses %.14g).
local function board_key(prefix, s, t, b)
  return prefix .. 'b:' .. s .. ':' .. t .. ':' .. b
end

--- counters_key
local function counters_key(prefix, s)
  return prefix .. 'c:' .. s
end

--- claimed_key
-- the rewards claimed by the joins of the period starting at s (Go: keys.claimed).
local function claimed_key(prefix, s)
  return prefix .. 'k:' .. s
end

--- names_key
local function names_key(prefix, s, t, b)
  return prefix .. 'i:' .. s .. ':' .. t .. ':' .. b
end

--- moderation_key
-- the players an operator took off period s's boards: player ->
-- '<state>:<tier code>:<packed score>' (moderate.lua)
local function moderation_key(prefix, s)
  return prefix .. 'm:' .. s
end

--- here
-- here(key, ...): how many of the keys exist; and, while Redis Cluster
-- migrates the league's slot, the script fails here, before it writes, if
-- any of them is on the other node. Pass a key the script found (a board,
-- names, another period's counters: not in KEYS) with one of its KEYS.
-- Alone, a key missing on the slot's new node is looked up there without
-- complaint (the client asked with ASKING), though it may still be on the
-- old one: a read would see nothing, and a write would make a second copy
-- that stops the migration (BUSYKEY). With a declared key, which is on
-- this node since Redis ran the script, the lookup names several keys,
-- which Redis refuses on a migrating or importing slot while any is missing.
-- A key that a command of the script found needs no here(): Redis moves a
-- key whole, so it is on this node. A script may look a key up first and
-- ask here() only when the lookup finds nothing, provided that lookup
-- wrote nothing (a read, ZADD XX): score.lua and standing.lua do, saving
-- an EXISTS on every call.
local function here(...)
  return redis.call('EXISTS', ...)
end

--- merge_at
-- merge_at(prefix, s, t, n, ck, size, min, low, above, joins): whether board n of tier t
-- in period s (ck its counters key; boards of size) is decided with another
-- because its tier's last board holding players has fewer than min
-- (min_board_size, tiers/merge.go): nil when decided alone, else the other
-- board, both boards' players now, and how many of the other's rank before a
-- player of the board (0 with low ''): those at or above packed score low
-- when the other is the earlier board, at or above above when the later.
-- joins: the tier's joins in period s (ck's field t) when the caller read
-- them already, else nil and they are read here.
-- Uses board_key and here.
local function merge_at(prefix, s, t, n, ck, size, min, low, above, joins)
  local last = math.ceil(tonumber(joins or redis.call('HGET', ck, t) or '0') / size)
  if n > last then
    return nil
  end
  local function card(b)
    local bk = board_key(prefix, s, t, b)
    here(bk, ck)
    return redis.call('ZCARD', bk)
  end
  local last_size = card(last)
  if n < last - 1 and last_size > 0 then
    return nil -- the last board has players: board n is not one of the last two
  end
  while last_size == 0 and last > 1 do
    -- every player of the last board was taken off it: the board before is last
    last = last - 1
    last_size = card(last)
  end
  if last < 2 or last_size >= min or (n ~= last and n ~= last - 1) then
    return nil
  end
  local partner, from = last, above
  if n == last then
    partner, from = last - 1, low
  end
  local ahead = 0
  if low ~= '' then
    ahead = redis.call('ZCOUNT', board_key(prefix, s, t, partner), from, '+inf')
  end
  return {partner, card(partner), card(n), ahead}
end

--- group_at
-- group_at(prefix, s, t, n, ck, size, min, low, above, seqs): merge_at for a
-- tier with cohorts (league/cohort.go, tiers/thin.go). seqs holds the codes
-- of the tier's boards, one byte each, in tie order: its shared boards'
-- first, then its cohorts'. A sequence's short last board merges with the
-- board before it, as merge_at says; a cohort whose last board holding
-- players is its first, holding fewer than min, is thin, and is decided with
-- the shared boards' last decision (their last board, with the one before it
-- when those merge) and every other thin cohort, as one board. Returns nil
-- when board n of code t is decided alone, else {partner, others' players,
-- own players, ahead, then the code and number of every board of the group
-- in tie order, this one included}: partner the first other board's number,
-- ahead as merge_at's, counted on each other board (those at or above low
-- on a board before this one in tie order, at or above above after it).
-- Uses board_key and here.
local function group_at(prefix, s, t, n, ck, size, min, low, above, seqs)
  local function card(c, b)
    local bk = board_key(prefix, s, c, b)
    here(bk, ck)
    return redis.call('ZCARD', bk)
  end
  -- the last board of code c's boards holding players (0: none), and its players
  local function tail(c, joined)
    local last = math.ceil(tonumber(joined or '0') / size)
    local sz = 0
    while last > 0 do
      sz = card(c, last)
      if sz > 0 then break end
      last = last - 1
    end
    return last, sz
  end
  local codes, own = {}, 0
  for i = 1, #seqs do
    codes[i] = string.byte(seqs, i)
    if codes[i] == t then
      own = i
    end
  end
  local joined = redis.call('HMGET', ck, unpack(codes))
  -- The board's own sequence first: most boards are not among its last
  -- two, and most cohorts are not thin.
  local last, sz = tail(t, joined[own])
  if n < last - 1 or n > last then
    return nil
  end
  local merged = last >= 2 and sz < min
  local group
  if own > 1 and last >= 2 then
    -- a cohort of more than one board: only its own last two may merge
    if merged then
      group = {{t, last - 1}, {t, last}}
    end
  elseif own > 1 and sz >= min then
    return nil -- a cohort's only board, full enough
  elseif own == 1 and n == last - 1 and not merged then
    return nil -- the shared boards' last but one, not merged with the last
  else
    -- a thin cohort's board, or the shared boards' last decision: with every
    -- thin cohort of the tier
    local fallback = {}
    for i, c in ipairs(codes) do
      local l, z = last, sz
      if i ~= own then
        l, z = tail(c, joined[i])
      end
      if l > 0 then
        if i == 1 then
          if l >= 2 and z < min then
            table.insert(fallback, {c, l - 1})
          end
          table.insert(fallback, {c, l})
        elseif l == 1 and z < min then
          table.insert(fallback, {c, 1}) -- thin: falls back to the shared boards
        end
      end
    end
    if #fallback > 1 then
      group = fallback
    end
  end
  if not group then
    return nil
  end
  local out = {0, 0, 0, 0}
  local before = true -- the boards before this one in tie order
  for _, b in ipairs(group) do
    table.insert(out, b[1])
    table.insert(out, b[2])
    if b[1] == t and b[2] == n then
      before = false
      out[3] = card(t, n)
    else
      if out[1] == 0 then
        out[1] = b[2]
      end
      out[2] = out[2] + card(b[1], b[2])
      if low ~= '' then
        local from = above
        if before then
          from = low
        end
        out[4] = out[4] + redis.call('ZCOUNT', board_key(prefix, s, b[1], b[2]), from, '+inf')
      end
    end
  end
  return out
end

--- seqs_of
-- seqs_of(groups, t): the codes of the boards of tier code t's tier in tie
-- order, from groups (each tier's codes, one byte each, a 255 byte after
-- each tier's): '' when t is in none.
local function seqs_of(groups, t)
  local from = 1
  for i = 1, #groups do
    local c = string.byte(groups, i)
    if c == 255 then
      from = i + 1
    elseif c == t then
      local to = string.find(groups, '\255', i, true) or (#groups + 1)
      return string.sub(groups, from, to - 1)
    end
  end
  return ''
end

--- int
-- Scores reach 2^53, past what %.14g prints exactly; %.0f prints them all.
local function int(x)
  return string.format('%.0f', x)
end

--- now_ms
-- now in milliseconds: the caller's injected clock when given (tests),
-- otherwise Redis's own clock, so every app server agrees on the period.
local function now_ms(override)
  if override ~= '' then
    return tonumber(override)
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

--- tie_bits
-- the low bits of a packed score: time left before the period end (first_reached)
-- and the reversed slot (join order). See league/pack.go.
local function tie_bits(now, end_s, unit, time_bits, slot_bits, size, slot)
  local low = size - slot
  if time_bits == 0 then
    return low
  end
  local left = math.floor((end_s * 1000 - now) / unit)
  local max = 2 ^ time_bits - 1
  if left < 0 then left = 0 elseif left > max then left = max end
  return left * 2 ^ slot_bits + low
end

--- reached
-- a leaderboard's first_reached tie: reaching a score earlier ranks
-- higher. Descending boards keep the time left before the end (more is
-- better), ascending ones the time since the start (less is better), in
-- units of unit ms, within 0..shift-1 (shift = 2^tie bits).
local function reached(now, start_s, end_s, unit, shift, asc)
  local tie
  if asc then
    tie = math.floor((now - start_s * 1000) / unit)
  else
    tie = math.floor((end_s * 1000 - now) / unit)
  end
  if tie < 0 then return 0 elseif tie > shift - 1 then return shift - 1 end
  return tie
end

--- limits
-- Rate limits (league/limit.go, leaderboard/limit.go): r counters at
-- KEYS[k..k+r-1], four ARGV each from ARGV[a]: the most the window allows;
-- its start and end in ms (end '' for a window that never ends); and what
-- a write adds to it, 'write' (one) or 'gain' (the score it gains).
-- limits_over returns the first limit of measure m that a write gaining
-- gain would take past its most, 0 when none, or -1 when now is outside a
-- window (the caller placed them on a clock that is not Redis's: it
-- recomputes and retries).
local function limits_over(k, a, r, m, gain, now)
  for l = 1, r do
    local b = a + 4 * (l - 1)
    if ARGV[b + 3] == m then
      if now < tonumber(ARGV[b + 1]) or (ARGV[b + 2] ~= '' and now >= tonumber(ARGV[b + 2])) then
        return -1
      end
      local add = 1
      if m == 'gain' then add = gain end
      if add > 0 and tonumber(redis.call('GET', KEYS[k + l - 1]) or 0) + add > tonumber(ARGV[b]) then
        return l
      end
    end
  end
  return 0
end

-- limits_take consumes the limits of measure m (every one when m is nil);
-- a counter outlives its window by a minute, for the clocks of callers
-- that lag Redis's.
local function limits_take(k, a, r, m, gain, now)
  for l = 1, r do
    local b = a + 4 * (l - 1)
    if m == nil or ARGV[b + 3] == m then
      local add = 1
      if ARGV[b + 3] == 'gain' then add = gain end
      if add > 0 and redis.call('INCRBY', KEYS[k + l - 1], add) == add and ARGV[b + 2] ~= '' then
        redis.call('PEXPIRE', KEYS[k + l - 1], tonumber(ARGV[b + 2]) - now + 60000)
      end
    end
  end
end
