DROP INDEX reward_claims_by_player;
DROP INDEX rewards_by_player;
