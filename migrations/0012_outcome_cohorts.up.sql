-- The cohort of the board an outcome was played on (league/cohort.go): a
-- tier's boards of a cohort are numbered apart from its shared boards, so
-- a board is (tier_before, cohort, board). NULL for a tier's shared boards,
-- which every outcome settled before cohorts were played on: nothing to
-- backfill, and a NULL costs the settlement's COPY no text per row.
-- Events of those outcomes carry the cohort in their data ({"cohort": c}).
ALTER TABLE outcomes ADD COLUMN cohort text;
