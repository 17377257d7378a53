-- Corrections after settlement: an operator zeroed or removed a player of a
-- settled period, and the period's board was decided again
-- (league.Engine.Correct). Independent of 0008: it only adds.
--
-- One row per correction, keyed by what it corrects: a retry, or a second
-- process running the same correction, finds the row and changes nothing
-- more. The row is written in the transaction that changes the outcomes,
-- standings, rewards and counts, with its events; status then says whether
-- the step after the commit (the new tiers and rewards in Redis) is done.
CREATE TABLE corrections (
    id           bigserial UNIQUE,
    league       text COLLATE "C" NOT NULL,
    period_start timestamptz NOT NULL,
    player       text COLLATE "C" NOT NULL, -- the player corrected
    action       text        NOT NULL CHECK (action IN ('zero', 'remove')),
    reason       text        NOT NULL CHECK (reason <> ''),
    actor        text        NOT NULL CHECK (actor <> ''),
    status       text        NOT NULL CHECK (status IN ('written', 'applied')),
    changes      jsonb       NOT NULL, -- []league.CorrectionChange: every player whose outcome or reward changed
    created_at   timestamptz NOT NULL DEFAULT now(),
    applied_at   timestamptz,
    PRIMARY KEY (league, period_start, player, action),
    CHECK ((status = 'applied') = (applied_at IS NOT NULL))
);

-- Rewards a correction took back. claimed: the reward had been delivered
-- already, so it stays delivered and the game decides what to do; otherwise
-- the reward row is gone (or holds the reward now owed) and no join will
-- deliver it.
CREATE TABLE reward_revocations (
    correction   bigint      NOT NULL, -- corrections.id
    league       text COLLATE "C" NOT NULL,
    period_start timestamptz NOT NULL,
    player       text COLLATE "C" NOT NULL,
    tier         text        NOT NULL,
    rank         integer     NOT NULL,
    items        jsonb       NOT NULL, -- []tiers.Item
    claimed      boolean     NOT NULL,
    revoked_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (correction, player)
);

CREATE INDEX reward_revocations_by_player ON reward_revocations (league, player, period_start);
