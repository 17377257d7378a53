-- lb_give.lua: give back units lb_take.lua took for a write that was then
-- refused, or that replayed a first attempt's result (leaderboard/reserve.go),
-- so that such a write consumes nothing. With a request id each counter is
-- given back only while the reservation records it, and the record forgets
-- it as it is given back: giving back twice gives back once.
--
-- KEYS[1..r] -> <ns>:lb:{L:s}:rl:<limit>:<window start ms|ever> <dimension values>  counters
--               to give one unit back to
-- KEYS[r+1]  -> <ns>:lb:{L:s}:rv:[<scope>:]<request id>  the reservation (only with a request id)
-- ARGV[1] -> r
-- ARGV[2] -> '1' with a reservation
-- ARGV[3] -> '1' to delete the reservation as well (the write was refused: a
--            retry of it takes afresh); '0' keeps what it still records
--
-- Returns {0, given}: how many units were given back. A counter whose window
-- ended and expired has none to give back (a DECR would leave -1 behind, for
-- ever).
--
-- uses: (no helpers)

local r = tonumber(ARGV[1])
local rv = ARGV[2] == '1' and KEYS[r + 1]
local given = 0
for l = 1, r do
  if not rv or redis.call('HDEL', rv, KEYS[l]) == 1 then
    if tonumber(redis.call('GET', KEYS[l]) or 0) > 0 then
      redis.call('DECR', KEYS[l])
      given = given + 1
    end
  end
end
if rv and ARGV[3] == '1' then
  redis.call('DEL', rv)
end
return {0, given}
