-- The player events of a settlement (player.promoted, .demoted, .stayed),
-- packed: a row per run of up to a thousand consecutive ids, each field an
-- array in id order, instead of a row per event. A settlement of a million
-- players wrote a million rows to events, each with its index entry and
-- its WAL: 2.8 s of the write's main connection, the largest part after
-- the standings. A thousand rows of arrays, compressed, carry the same
-- events in 0.75-1.2 s, and take a quarter of the disk (BENCHMARKS.md,
-- "Player events packed").
--
-- Nothing else changes for a reader: the ids are those the settlement
-- reserved for its player events, between its period.closed and its
-- reward.granted, and the feed and the webhooks read them as events
-- (postgres/events.go). The outbox view below shows every event, rows and
-- packed alike, for SQL. Events are never changed once written: a
-- correction or a prune touches outcomes, never these.
--
-- Keyed by the last id: the feed looks for the first chunk ending past its
-- cursor, and a webhook's retry for the chunk holding one id, each a
-- single probe. Chunks never overlap, and no row of events has an id a
-- chunk holds (the settlement took them from the sequence with setval).
CREATE TABLE event_chunks (
    first_id     bigint NOT NULL,
    last_id      bigint PRIMARY KEY,
    league       text COLLATE "C" NOT NULL,
    period_start timestamptz NOT NULL,
    at           timestamptz NOT NULL, -- when settlement wrote them
    moves        "char"[]  NOT NULL,   -- p: player.promoted, d: player.demoted, s: player.stayed
    players      text[]    NOT NULL,
    tier_before  text[]    NOT NULL,
    tier_after   text[]    NOT NULL,
    board        integer[] NOT NULL,
    rank         integer[] NOT NULL,
    score        bigint[]  NOT NULL,
    cohort       text[]    NOT NULL,   -- NULL elements for a tier's shared boards (migration 0012)
    CHECK (last_id >= first_id),
    CHECK (cardinality(players) = last_id - first_id + 1)
);

-- lz4 compresses the arrays for less than the default pglz costs (the
-- chunks of a million players copied in 0.5 s against 0.9 s, psql). A
-- server built without lz4 keeps pglz.
DO $$
BEGIN
    ALTER TABLE event_chunks
        ALTER moves SET COMPRESSION lz4, ALTER players SET COMPRESSION lz4,
        ALTER tier_before SET COMPRESSION lz4, ALTER tier_after SET COMPRESSION lz4,
        ALTER board SET COMPRESSION lz4, ALTER rank SET COMPRESSION lz4,
        ALTER score SET COMPRESSION lz4, ALTER cohort SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END $$;

-- Every event, as the feed serves it, for reading in SQL (counting a
-- period's events, following a player). The application reads the two
-- tables itself: this view cannot find an id's chunk without unpacking
-- every chunk.
CREATE VIEW outbox AS
    SELECT id, type, league, period_start, player, at, tier_before, tier_after, board, rank, score, data, cohort
    FROM events
    UNION ALL
    SELECT c.first_id + u.n - 1,
        CASE u.move WHEN 'p' THEN 'player.promoted' WHEN 'd' THEN 'player.demoted' ELSE 'player.stayed' END,
        c.league, c.period_start, u.player, c.at, u.tier_before, u.tier_after, u.board, u.rank, u.score, NULL::jsonb, u.cohort
    FROM event_chunks c,
        unnest(c.moves, c.players, c.tier_before, c.tier_after, c.board, c.rank, c.score, c.cohort)
            WITH ORDINALITY AS u(move, player, tier_before, tier_after, board, rank, score, cohort, n);
