DROP INDEX outcomes_by_player;
