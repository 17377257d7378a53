DROP TABLE reward_revocations;
DROP TABLE corrections;
