-- The cohort of the board an outcome was played on (league/cohort.go): a
-- tier's boards of a cohort are numbered apart from its shared boards, so
-- a board is (tier_before, cohort, board). NULL for a tier's shared boards,
-- which every outcome settled before cohorts were played on: nothing to
-- backfill, and a NULL costs the settlement's COPY no text per row. The
-- outcome events (player.promoted, .demoted, .stayed) carry it too, to
-- name their board.
ALTER TABLE outcomes ADD COLUMN cohort text;
ALTER TABLE events ADD COLUMN cohort text;
