-- merged.lua (read-only): whether a board of a tier is decided with another
-- (min_board_size: a tier's last board holding fewer players is decided with
-- the board before it, tiers/merge.go), and where a player of it stands in
-- the merged ranking. Only run for tiers with min_board_size, by the readers
-- score.lua does not answer for (standings, board reads, a join's early
-- decision, replayed and held writes).
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
-- uses: board_key here merge_at

return merge_at(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[6]), KEYS[1], tonumber(ARGV[4]),
  tonumber(ARGV[5]), ARGV[7], ARGV[8]) or {0}
