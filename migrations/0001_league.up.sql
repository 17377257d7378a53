-- The settlement results of every league. Redis holds the live boards; this
-- schema holds what settlement decided, and is the source of truth for each
-- player's tier.
--
-- Shaped by the settlement write, a million players in one transaction:
-- * League and player ids are COLLATE "C": they are opaque ids, byte order
--   is all they need, and comparing bytes instead of going through the
--   locale halves the cost of every index insert.
-- * The keys of outcomes and rewards lead with the period, so a period's
--   rows append to the end of each index, whatever the history behind them.
--   Led by the player, each period would insert into every page of an index
--   that grows with every period: at seven weeks of history that was 60%
--   slower, and it keeps growing.
-- * No foreign keys: a per-row check would cost more than the write. Only
--   postgres.Store writes these tables, a period in one transaction, so no
--   orphan can arise; primary keys make duplicates impossible.

-- One row per settled (or settling) period: the settlement state machine.
CREATE TABLE settlements (
    league       text COLLATE "C" NOT NULL,
    period_start timestamptz NOT NULL,
    period_end   timestamptz NOT NULL,
    status       text        NOT NULL DEFAULT 'started'
                 CHECK (status IN ('started', 'written', 'applied', 'done')),
    started_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    players      integer     NOT NULL DEFAULT 0,
    tiers        jsonb       NOT NULL DEFAULT '[]', -- []league.TierCount, ladder order
    last_error   text        NOT NULL DEFAULT '',
    PRIMARY KEY (league, period_start),
    CHECK (period_end > period_start),
    CHECK ((status = 'done') = (finished_at IS NOT NULL))
);

-- One row per player per settled period. A player's history walks the
-- league's settlements newest first and looks each period up by this key:
-- one index probe per period, and no second index to slow the write.
CREATE TABLE outcomes (
    league       text COLLATE "C" NOT NULL,
    period_start timestamptz NOT NULL,
    player       text COLLATE "C" NOT NULL,
    tier_before  text        NOT NULL,
    tier_after   text        NOT NULL,
    board        integer     NOT NULL,
    rank         integer     NOT NULL,
    score        bigint      NOT NULL,
    PRIMARY KEY (league, period_start, player)
);

-- Each player's current tier: the tier their latest settled period gave
-- them. A settlement touches only the rows of players who are new or whose
-- tier changed (a fifth of them, not all), which is why the row keeps the
-- period that set the tier rather than the last one played: the last one
-- played is the newest outcome. Settling an older period after a newer one
-- (catch-up after an outage) never moves a standing back.
--
-- fillfactor leaves room on each page, so that changing a tier writes the
-- new row version beside the old one without touching the index (a HOT
-- update). Populations reads a league's rows through the primary key: it
-- is a rare query, and an index on (league, tier) would be written by every
-- move of every settlement.
CREATE TABLE standings (
    league       text COLLATE "C" NOT NULL,
    player       text COLLATE "C" NOT NULL,
    tier         text        NOT NULL,
    tier_since   timestamptz NOT NULL, -- start of the period whose settlement gave this tier
    first_period timestamptz NOT NULL, -- start of the first period settled for the player
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (league, player)
) WITH (fillfactor = 80);

-- Rewards settlement granted: at most one per player per period.
CREATE TABLE rewards (
    league       text COLLATE "C" NOT NULL,
    period_start timestamptz NOT NULL,
    player       text COLLATE "C" NOT NULL,
    tier         text        NOT NULL,
    rank         integer     NOT NULL,
    items        jsonb       NOT NULL, -- []tiers.Item
    PRIMARY KEY (league, period_start, player)
);

-- Deliveries of rewards by a join. A table of its own, not a column of
-- rewards: a join may deliver rewards computed from the frozen board while
-- settlement is still writing, so a claim can arrive before its reward row.
CREATE TABLE reward_claims (
    league         text COLLATE "C" NOT NULL,
    period_start   timestamptz NOT NULL, -- the period the rewards were earned in
    player         text COLLATE "C" NOT NULL,
    claimed_period timestamptz,          -- the period whose join delivered them
    claimed_at     timestamptz NOT NULL,
    PRIMARY KEY (league, period_start, player)
);
