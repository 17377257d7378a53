-- Events out: the outbox of what settlement and reward claims did, read by
-- the pull feed (GET /v1/admin/events) and delivered to the webhooks of
-- config.yaml (package events). Independent of every table before it: it
-- only adds.
--
-- An event is written in the transaction that does what it describes (a
-- settlement's write, a batch of reward claims), so it exists exactly when
-- that does: once, however often a settlement is retried.
--
-- id is the feed's cursor, so it must grow in commit order: a reader that
-- has seen id 9 must never later find an 8. A sequence alone does not give
-- that (two transactions take ids in one order and may commit in the
-- other), so every writer takes the outbox lock (pg_advisory_xact_lock,
-- postgres/events.go) before it takes its first id, as its last step
-- before COMMIT. Ids are then taken by one transaction at a time, each one
-- committed (and visible) before the next takes any. Aborted writers leave
-- gaps, which a cursor does not mind.
--
-- Shaped for the settlement write, a million player events in one COPY
-- beside the million outcomes: the fields of player.* events are columns,
-- not JSON, so nothing is built or parsed per row (jsonb per row doubled
-- the cost of the events); the other types, a few per hundred players,
-- keep theirs in data. Only the primary key is indexed: its ids arrive in
-- order, each insert at the right edge of the index.
CREATE TABLE events (
    id           bigserial PRIMARY KEY,
    type         text        NOT NULL, -- period.closed, player.promoted, player.demoted, player.stayed, reward.granted, reward.claimed
    league       text COLLATE "C" NOT NULL,
    period_start timestamptz NOT NULL, -- the period settled, or the reward was earned in
    player       text COLLATE "C",     -- NULL for period.closed
    at           timestamptz NOT NULL DEFAULT now(), -- when it was written
    tier_before  text,                 -- player.*: the tier played
    tier_after   text,                 -- player.*: the tier settlement gave
    board        integer,              -- player.*: the board's number in tier_before
    rank         integer,              -- player.*
    score        bigint,               -- player.*
    data         jsonb                 -- the other types' fields
);

-- Each webhook's progress: every event with an id up to scanned_to was
-- delivered to it, skipped (a type or league it does not take), or waits
-- in event_deliveries. A webhook first seen starts at the outbox's end.
CREATE TABLE event_webhooks (
    webhook    text PRIMARY KEY, -- its name in config.yaml
    scanned_to bigint      NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- The events of a webhook not delivered yet at or below its scanned_to. A
-- lane is a league's player (or the league, for period.closed): its events
-- go out in id order, so the lowest of a lane's rows is its head, retried
-- ('retry', due at next_at) or dead ('dead', after max_attempts, until an
-- operator replays it), and the rest wait behind it ('held'). Empty while
-- every receiver keeps up.
CREATE TABLE event_deliveries (
    webhook    text NOT NULL,
    event_id   bigint NOT NULL,
    lane       text COLLATE "C" NOT NULL,
    state      text NOT NULL CHECK (state IN ('retry', 'held', 'dead')),
    attempts   integer NOT NULL DEFAULT 0,
    next_at    timestamptz NOT NULL DEFAULT now(),
    last_error text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (webhook, event_id)
);

CREATE INDEX event_deliveries_by_lane ON event_deliveries (webhook, lane, event_id);
CREATE INDEX event_deliveries_due ON event_deliveries (webhook, next_at) WHERE state = 'retry';
