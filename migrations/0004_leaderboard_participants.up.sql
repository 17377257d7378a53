-- The distinct actors who wrote in an archived period (PFCOUNT of its
-- HyperLogLog when it was archived), on a leaderboard that counts them
-- (participants: [day, ...]). NULL where it does not, and for the periods
-- archived before this column: their count was not kept.
--
-- A nullable column without a default: Postgres adds it to the catalog
-- alone, rewriting no row, however many periods are archived.
ALTER TABLE leaderboard_periods ADD COLUMN participants bigint;
