DROP TABLE leaderboard_standings;
DROP TABLE leaderboard_periods;
