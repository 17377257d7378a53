ALTER TABLE leaderboard_periods DROP COLUMN participants;
