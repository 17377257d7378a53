-- What a settled sub-board showed, kept with each outcome, so that the board
-- can be read back from Postgres after Redis's retention dropped it: the
-- zone the player's rank fell in (stay, promote, demote: tiers.Zone as the
-- board read showed it) and the name and avatar the board carried. The
-- board itself is the outcome's tier_before and board.
--
-- Columns of outcomes rather than a table of their own: settlement's COPY
-- carries them in the rows it writes anyway, with no second key to index.
-- NULL where a player had no name or avatar (most have no avatar), and in
-- the rows of periods settled before this migration: nullable columns
-- without a default are added without rewriting the table.
--
-- No index by board: reading an archived board scans its period's rows by
-- the primary key's prefix (83 ms at a million players). An
-- index on (league, period_start, tier_before, board) would cost every
-- settlement about a sixth more (as outcomes_by_player did) for a read
-- operators make now and then.
ALTER TABLE outcomes
    ADD COLUMN zone   text,
    ADD COLUMN name   text,
    ADD COLUMN avatar text;
