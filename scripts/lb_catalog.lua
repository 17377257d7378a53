-- lb_catalog.lua: import catalog entries of a leaderboard: each member's
-- display name, metadata and multiplier, and its initial score on the all-time board,
-- in one atomic step for the chunk. Idempotent: the initial score applied
-- is remembered, and importing a member again adds only the difference to
-- its score (nothing when unchanged), so a retried or repeated import
-- never counts an initial score twice. Every member is checked before any
-- is written: one that would pass the maximum writes nothing of the chunk.
--
-- KEYS[1] -> <ns>:lb:{L}:initial   hash  member -> the initial score applied
-- KEYS[2] -> <ns>:lb:{L}:catalog   hash  member -> {"name":...,"metadata":...}
-- KEYS[3] -> <ns>:lb:{L}:all_time  the all-time board (KEYS[1] again when none)
-- KEYS[4] -> <ns>:lb:{L}:mult      hash  member -> its multiplier, where not 1
-- ARGV[1] -> now in ms, or '' for Redis TIME
-- ARGV[2] -> the maximum score
-- ARGV[3] -> the all-time board's tie bits (first_reached), 0 when ties go by member id
-- ARGV[4] -> unit (ms) of first_reached's time
-- ARGV[5] -> order: desc | asc
-- ARGV[6], ARGV[7] -> the span first_reached counts over on the all-time board (Unix s)
-- ARGV[8] -> 1 when there is an all-time board
-- ARGV[9] -> 1 to check the members only, writing nothing (an import of several
--            chunks checks them all before it writes any)
-- then four per member, from ARGV[10]: member, initial score, catalog value ('' removes it),
--   multiplier (1: none)
--
-- Returns {0, changed}: the members whose entry or score changed (0 when checking);
-- {7, i, score}: member i's score would pass the maximum from score.
--
-- uses: now_ms reached

local max, tb, unit, asc = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5] == 'asc'
local board = ARGV[8] == '1' and KEYS[3]
local shift = 2 ^ tb
local deltas, current = {}, {}
for i = 1, (#ARGV - 9) / 4 do
  local a = 10 + 4 * (i - 1)
  local member, initial = ARGV[a], tonumber(ARGV[a + 1])
  local delta = initial - tonumber(redis.call('HGET', KEYS[1], member) or 0)
  if delta ~= 0 then
    local packed = redis.call('ZSCORE', board, member)
    local score = 0
    if packed then
      score = math.floor(tonumber(packed) / shift)
    end
    if score + delta > max or score + delta < -max then
      return {7, i, score}
    end
    current[i] = packed
  end
  deltas[i] = delta
end
if ARGV[9] == '1' then
  return {0, 0}
end

-- keep sets member's field of hash to value, or removes it when value is
-- none (the default, kept by absence); true when that changed the hash.
local function keep(hash, member, value, none)
  local old = redis.call('HGET', hash, member)
  if value == none then
    return old and redis.call('HDEL', hash, member) == 1
  end
  if old == value then
    return false
  end
  redis.call('HSET', hash, member, value)
  return true
end

local now, changed = nil, 0
for i = 1, (#ARGV - 9) / 4 do
  local a = 10 + 4 * (i - 1)
  local member, delta, value = ARGV[a], deltas[i], ARGV[a + 2]
  local moved = false
  if delta ~= 0 then
    if current[i] then
      redis.call('ZINCRBY', board, delta * shift, member)
    else
      -- first_reached, as a write's
      local tie = 0
      if tb > 0 then
        now = now or now_ms(ARGV[1])
        tie = reached(now, tonumber(ARGV[6]), tonumber(ARGV[7]), unit, shift, asc)
      end
      redis.call('ZADD', board, delta * shift + tie, member)
    end
    if tonumber(ARGV[a + 1]) == 0 then
      redis.call('HDEL', KEYS[1], member)
    else
      redis.call('HSET', KEYS[1], member, ARGV[a + 1])
    end
    moved = true
  end
  local entry = keep(KEYS[2], member, value, '')
  local multiplier = keep(KEYS[4], member, ARGV[a + 3], '1')
  if moved or entry or multiplier then changed = changed + 1 end
end
return {0, changed}
