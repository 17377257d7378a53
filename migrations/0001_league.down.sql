DROP TABLE reward_claims;
DROP TABLE rewards;
DROP TABLE standings;
DROP TABLE outcomes;
DROP TABLE settlements;
