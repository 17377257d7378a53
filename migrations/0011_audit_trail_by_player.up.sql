-- The audit trail by player (postgres/trail.go) reads a player's rewards
-- and claims: both keyed by period first, so without these a player's
-- trail would scan every reward and claim of the league. Outcomes have
-- theirs already (0002), decays theirs (0010). Each costs a settlement's
-- reward rows (a few per hundred players) and each claim one more index
-- entry. Independent of every table before it: it only adds.
CREATE INDEX rewards_by_player ON rewards (league, player, period_start);
CREATE INDEX reward_claims_by_player ON reward_claims (league, player, period_start);
