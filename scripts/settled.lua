-- settled.lua: record that a period's outcomes are applied. From here on a
-- join of a player whose record still points at the period and carries no new
-- tier knows they stayed. Never moves backwards: periods settle oldest first.
--
-- KEYS[1] -> <ns>:{L}:meta
-- ARGV[1] -> S, the settled period's start (Unix s)
-- ARGV[2] -> the epoch the caller opened the league at
--
-- Returns 1 when the mark moved forward, 0 when it was already there or past,
-- -1 when the league's epoch is not ARGV[2] (nothing written).
--
-- uses: (no helpers)

if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[2] then
  return -1
end
local cur = tonumber(redis.call('HGET', KEYS[1], 'settled') or '0')
if cur >= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'settled', ARGV[1])
return 1
