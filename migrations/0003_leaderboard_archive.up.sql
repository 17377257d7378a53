-- The final standings of leaderboards' closed periods, written once per
-- period by the scheduler (leaderboard.Engine.Archive), read for periods
-- past their Redis retention.
--
-- A period's row and its standings are written in one transaction, the row
-- first: a second archiver of the same period waits on the row's key and
-- then writes nothing, so a period is archived exactly once.
CREATE TABLE leaderboard_periods (
    leaderboard  text        NOT NULL,
    kind         text        NOT NULL, -- hour, day, week, month
    period_start timestamptz NOT NULL,
    period_end   timestamptz NOT NULL,
    members      integer     NOT NULL, -- on the board when it closed
    kept         integer     NOT NULL, -- rows in leaderboard_standings: all, or the configured top
    archived_at  timestamptz NOT NULL,
    PRIMARY KEY (leaderboard, kind, period_start)
);

CREATE TABLE leaderboard_standings (
    leaderboard  text        NOT NULL,
    kind         text        NOT NULL,
    period_start timestamptz NOT NULL,
    rank         integer     NOT NULL, -- 1-based
    member       text        NOT NULL,
    score        bigint      NOT NULL,
    PRIMARY KEY (leaderboard, kind, period_start, rank)
);

-- around a member of an archived period
CREATE INDEX leaderboard_standings_by_member ON leaderboard_standings (leaderboard, kind, period_start, member);
