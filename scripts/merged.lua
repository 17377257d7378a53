-- merged.lua (read-only): whether a board of a tier is decided with another
-- (min_board_size: a tier's last board holding fewer players is decided with
-- the board before it, tiers/merge.go), and where a player of it stands in
-- the merged ranking. Only run for tiers with min_board_size.
--
-- KEYS[1] -> <ns>:{L}:c:<Q>   period Q's counters (the tier's joins)
-- ARGV[1] -> key prefix <ns>:{L}:
-- ARGV[2] -> Q start (Unix s)
-- ARGV[3] -> the tier's code      ARGV[4] -> board size
-- ARGV[5] -> min_board_size       ARGV[6] -> the board's number
-- ARGV[7] -> the lowest packed score of the player's score, or '' for no
--            player: the partner's players at or above it are ranked before
--            the player when the partner is the earlier board
-- ARGV[8] -> the lowest packed score of the player's score + 1: those at or
--            above it are ranked before the player when the partner is the
--            later board
--
-- Returns {0} when the board is decided alone, else
-- {partner, partner size, own size, ahead}: the board it is decided with,
-- both boards' players now, and how many of the partner's are ranked before
-- the player (0 without one). The last board is the highest-numbered one
-- holding players.
--
-- uses: board_key here

local prefix, s, t = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local n = tonumber(ARGV[6])
local joined = tonumber(redis.call('HGET', KEYS[1], t) or '0')
local last = math.ceil(joined / tonumber(ARGV[4]))
if n > last or n < last - 1 then
  return {0}
end
local function size(b)
  local bk = board_key(prefix, s, t, b)
  here(bk, KEYS[1])
  return redis.call('ZCARD', bk)
end
local last_size = size(last)
while last_size == 0 and last > 1 do
  -- every player of the last board was taken off it: the board before is last
  last = last - 1
  last_size = size(last)
end
if last < 2 or last_size >= tonumber(ARGV[5]) or (n ~= last and n ~= last - 1) then
  return {0}
end
local partner = last
if n == last then
  partner = last - 1
end
local own_size, partner_size = size(n), size(partner)
local ahead = 0
if ARGV[7] ~= '' then
  local from = ARGV[8]
  if partner < n then
    from = ARGV[7]
  end
  ahead = redis.call('ZCOUNT', board_key(prefix, s, t, partner), from, '+inf')
end
return {partner, partner_size, own_size, ahead}
