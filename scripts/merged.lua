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
-- ARGV[9] -> in a league with cohorts, the codes of the tier's boards in tie
--            order (shared first, then its cohorts'; common.lua's group_at),
--            else ''
--
-- Returns {0} when the board is decided alone, else
-- {partner, partner size, own size, ahead}: the board it is decided with,
-- both boards' players now, and how many of the partner's are ranked before
-- the player (0 without one). The last board is the highest-numbered one
-- holding players. With ARGV[9], {partner, others' players, own size, ahead,
-- then the code and number of each board of the merge in tie order}: a thin
-- cohort's board is decided with the shared boards' last and other thin
-- cohorts' (tiers/thin.go).
--
-- uses: board_key here merge_at group_at

if #ARGV[9] > 1 then
  return group_at(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[6]), KEYS[1], tonumber(ARGV[4]),
    tonumber(ARGV[5]), ARGV[7], ARGV[8], ARGV[9]) or {0}
end
return merge_at(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[6]), KEYS[1], tonumber(ARGV[4]),
  tonumber(ARGV[5]), ARGV[7], ARGV[8]) or {0}
