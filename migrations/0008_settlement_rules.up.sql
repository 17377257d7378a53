-- The ladder rules each period was decided under, kept with its settlement
-- so that `leaguectl settlement verify` can re-decide the period from
-- Postgres alone: rules is tiers.Ladder.RulesJSON as Redis recorded it with
-- the period (text, not jsonb: the fingerprint is the SHA-256 of these very
-- bytes, which jsonb would reorder), rules_fingerprint its fingerprint.
-- The boards as read at close are the outcome rows (board, rank, score).
--
-- Written by the settlement's one write (WriteOutcomes), one value per
-- period in the UPDATE that marks it written: nothing per player. NULL in
-- settlements written before this migration, which cannot be verified.
ALTER TABLE settlements
    ADD COLUMN rules             text,
    ADD COLUMN rules_fingerprint text;
