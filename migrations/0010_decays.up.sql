-- Tier moves by absence decay: a player who sat out a league's decay_after
-- periods (or a multiple) joined one or more tiers lower. The join decides
-- and places them in Redis, leaving the move in the claims stream; the
-- claims recorder copies it here with its player.decayed event, in one
-- transaction. A join places a player once a period, so (league, period,
-- player) keys it and a second copy changes nothing. Independent of every
-- table before it: it only adds. Read by the audit trail (by player and by
-- period, as outcomes are).
CREATE TABLE decays (
    league       text COLLATE "C" NOT NULL,
    period_start timestamptz NOT NULL, -- the period the join placed them in
    player       text COLLATE "C" NOT NULL,
    tier_before  text        NOT NULL, -- the tier held
    tier_after   text        NOT NULL, -- the tier decay gave
    absent       integer     NOT NULL CHECK (absent > 0), -- periods sat out
    at           timestamptz NOT NULL, -- Redis's clock at the join
    PRIMARY KEY (league, period_start, player)
);

CREATE INDEX decays_by_player ON decays (league, player, period_start);
