-- Admin actions, for the audit: each operator's action on a player (hide,
-- unhide, remove, set-score, ban, unban), who did it, when and why, and the
-- player's state before and after. Written by league.Engine.RecordActions
-- from the league's audit stream in Redis, where the action leaves its
-- record in the same atomic step that carries it out; the stream's id is
-- the key, so an action copied twice is kept once.
--
-- The id, "<ms>-<n>" in Redis, is kept as its two numbers: the audit is read
-- newest first by it, a page at a time, and text would sort 10 before 9.
-- The two indexes serve the audit's filters (by player, by period); each
-- holds a handful of rows per action, and actions are rare next to
-- settlements' millions of outcomes.
CREATE TABLE admin_actions (
    league       text COLLATE "C" NOT NULL,
    id_ms        bigint      NOT NULL, -- the stream id's milliseconds (Redis's clock)
    id_seq       bigint      NOT NULL, -- and its sequence number
    at           timestamptz NOT NULL, -- when it was done (the engine's clock)
    actor        text        NOT NULL CHECK (actor <> ''),  -- the admin key's name, leaguectl's user
    action       text        NOT NULL, -- hide, unhide, remove, set-score, ban, unban
    player       text COLLATE "C" NOT NULL,
    period_start timestamptz,          -- the period acted in; NULL: a ban of a player not in it
    reason       text        NOT NULL CHECK (reason <> ''),
    state_before text        NOT NULL, -- ranked, hidden, removed, banned, absent
    state_after  text        NOT NULL,
    score_before bigint,               -- NULL when absent from the period
    score_after  bigint,
    banned_until_before timestamptz,   -- NULL: not banned
    banned_until_after  timestamptz,
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (league, id_ms, id_seq)
);

CREATE INDEX admin_actions_by_player ON admin_actions (league, player, id_ms, id_seq);
CREATE INDEX admin_actions_by_period ON admin_actions (league, period_start, id_ms, id_seq);
