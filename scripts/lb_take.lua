-- lb_take.lua: take one unit of each limit of a sharded leaderboard that
-- does not count by member and lives in this shard (leaderboard/reserve.go),
-- before the write itself runs in the member's shard: every limit is
-- checked before any is taken, so a reached one takes nothing. With a
-- request id the counters taken are recorded under it, so a retry of the
-- write takes none of them again, and a give back (lb_give.lua) gives each
-- back once.
--
-- KEYS[1..r] -> <ns>:lb:{L:s}:rl:<limit>:<window start ms|ever> <dimension values>  the counters
-- KEYS[r+1]  -> <ns>:lb:{L:s}:rv:[<scope>:]<request id>  the reservation (only with a request id):
--               hash: 'member' -> the write's member; each counter taken -> '1'
-- ARGV[1] -> now in ms, or '' for Redis TIME
-- ARGV[2] -> r, the number of limits
-- ARGV[3] -> the write's member
-- ARGV[4] -> how long the reservation is kept (ms); '' without a request id
-- then four per limit, from ARGV[5] (common.lua's limits): the most its window
--   allows this write's dimensions; start and end (ms) of its window ('' for
--   ever); 'write'
--
-- Returns one of
--   {0, now, found, i...}   taken at now (ms): i each limit this call took; a counter
--                           the reservation holds already is not taken again. found is
--                           1 when the reservation existed (a retry), else 0
--   {2, now}                a window does not hold Redis's now (ms): recompute, retry
--   {8}                     the request id is reserved for another member
--   {16, l, end, found}     limit l is reached; its window ends at end (ms, -1: never);
--                           nothing taken
--
-- uses: now_ms limits

local now = now_ms(ARGV[1])
local r, member = tonumber(ARGV[2]), ARGV[3]
local rv = ARGV[4] ~= '' and KEYS[r + 1]
local held, found = {}, 0
if rv then
  local owner = redis.call('HGET', rv, 'member')
  if owner and owner ~= member then
    return {8}
  end
  if owner then
    found = 1
    for l = 1, r do
      held[l] = redis.call('HEXISTS', rv, KEYS[l]) == 1
    end
  end
end

-- Checked, one limit at a time (the helpers take a run of limits; these
-- skip the ones held), before any is taken.
for l = 1, r do
  if not held[l] then
    local over = limits_over(l, 5 + 4 * (l - 1), 1, 'write', 1, now)
    if over < 0 then
      return {2, now}
    elseif over > 0 then
      return {16, l, tonumber(ARGV[5 + 4 * (l - 1) + 2]) or -1, found}
    end
  end
end

local reply, record = {0, now, found}, {'HSET', rv, 'member', member}
for l = 1, r do
  if not held[l] then
    limits_take(l, 5 + 4 * (l - 1), 1, nil, 1, now)
    reply[#reply + 1] = l
    record[#record + 1] = KEYS[l]
    record[#record + 1] = '1'
  end
end
if rv and #reply > 3 then
  redis.call(unpack(record))
  redis.call('PEXPIRE', rv, ARGV[4])
end
return reply
