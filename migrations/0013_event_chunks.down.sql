-- Unpack the chunks into rows of events, with their ids, so that rolling
-- back loses no event.
INSERT INTO events (id, type, league, period_start, player, at, tier_before, tier_after, board, rank, score, data, cohort)
    SELECT * FROM outbox o WHERE NOT EXISTS (SELECT FROM events e WHERE e.id = o.id);
DROP VIEW outbox;
DROP TABLE event_chunks;
