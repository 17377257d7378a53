-- lb_rank.lua: where members stand on one shard of a sharded leaderboard
-- (read only; leaderboard/shardrank.go). For each query, a member and a
-- packed score on one of the shard's boards: how many of the shard's
-- entries rank before it, and its n nearest entries on each side. The
-- engine runs it on every shard at once, adds the counts up for the rank on
-- the whole board and merges the neighbours for the gap and the window.
--
-- A sorted set orders entries by score, then equal scores by member id,
-- bytewise. The script counts by that order without writing (so it needs
-- no master, and leaves no trace in replication or in the set's encoding):
-- the better scores by ZCOUNT, and within the entries of the same score, a
-- binary search of their index range, one ZRANGE per step. The member's
-- own entry is never counted or listed: it is the query. If it stands at
-- another score (written since the engine read it), it is left out, so the
-- answer is the shard as it would be with the member at the score asked.
--
-- KEYS[1..b] -> boards of this shard
-- then per rolling board the engine asks about, its pre-fill's progress on
-- this shard, 'done' once filled
-- ARGV[1] -> order: desc | asc
-- ARGV[2] -> b, the number of boards among KEYS
-- then per query four: i (the board, KEYS[i]), member, packed score (as
-- Redis prints it: passed on to ZCOUNT untouched), n (neighbours per side)
--
-- Returns {size_1, ..., size_b, filled..., then per query:
--   before, a, member, packed, ... (a pairs), c, member, packed, ... (c pairs)}:
-- each board's ZCARD; 1 per rolling board when filled, 0 when not yet;
-- per query the entries ranking before it, then up to n ranking just
-- before it and up to n just after it, each list nearest first.
--
-- uses: (no helpers)

local asc, b = ARGV[1] == 'asc', tonumber(ARGV[2])

-- below reports whether id x sorts before id y as Redis orders ties:
-- memcmp. Lua's < on strings is strcoll, which follows the server's locale.
local function below(x, y)
  for i = 1, math.min(#x, #y) do
    local cx, cy = string.byte(x, i), string.byte(y, i)
    if cx ~= cy then
      return cx < cy
    end
  end
  return #x < #y
end

-- near returns up to n entries of key from ascending index `from` outwards
-- (step 1: up, -1: down), nearest first, without member; spare is 1 when
-- member may be among them, so that n remain.
local function near(key, from, step, n, member, spare)
  local out = {}
  if n == 0 or from < 0 then
    return out
  end
  local lo, hi = from, from + n - 1 + spare
  if step < 0 then
    lo, hi = math.max(from - n + 1 - spare, 0), from
  end
  local r = redis.call('ZRANGE', key, lo, hi, 'WITHSCORES')
  local first, last = 1, #r - 1
  if step < 0 then
    first, last = #r - 1, 1
  end
  for i = first, last, 2 * step do
    if #out == 2 * n then
      break
    end
    if r[i] ~= member then
      out[#out + 1] = r[i]
      out[#out + 1] = r[i + 1]
    end
  end
  return out
end

local reply, sizes = {}, {}
for i = 1, b do
  sizes[i] = redis.call('ZCARD', KEYS[i])
  reply[i] = sizes[i]
end
for k = b + 1, #KEYS do
  if redis.call('GET', KEYS[k]) == 'done' then
    reply[#reply + 1] = 1
  else
    reply[#reply + 1] = 0
  end
end

for q = 3, #ARGV, 4 do
  local i, member, packed, n = tonumber(ARGV[q]), ARGV[q + 1], ARGV[q + 2], tonumber(ARGV[q + 3])
  local key, score = KEYS[i], tonumber(packed)
  -- lt: the entries before (packed, member) by ascending index; le: lt and
  -- the member itself, when it stands there
  local lt, le
  local at = redis.call('ZSCORE', key, member)
  if at then
    at = tonumber(at)
  end
  if at == score then
    lt = redis.call('ZRANK', key, member)
    le = lt + 1
  else
    lt = redis.call('ZCOUNT', key, '-inf', '(' .. packed)
    local hi = lt + redis.call('ZCOUNT', key, packed, packed)
    while lt < hi do
      local mid = math.floor((lt + hi) / 2)
      if below(redis.call('ZRANGE', key, mid, mid)[1], member) then
        lt = mid + 1
      else
        hi = mid
      end
    end
    le = lt
  end
  local spare, before, above, after = 0
  if at and at ~= score then
    spare = 1
  end
  if asc then
    before = lt
    if at and at < score then
      before = before - 1
    end
    above = near(key, lt - 1, -1, n, member, spare)
    after = near(key, le, 1, n, member, spare)
  else
    before = sizes[i] - le
    if at and at > score then
      before = before - 1
    end
    above = near(key, le, 1, n, member, spare)
    after = near(key, lt - 1, -1, n, member, spare)
  end
  reply[#reply + 1] = before
  reply[#reply + 1] = #above / 2
  for j = 1, #above do
    reply[#reply + 1] = above[j]
  end
  reply[#reply + 1] = #after / 2
  for j = 1, #after do
    reply[#reply + 1] = after[j]
  end
end
return reply
