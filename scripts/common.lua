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
