ALTER TABLE events DROP COLUMN cohort;
ALTER TABLE outcomes DROP COLUMN cohort;
