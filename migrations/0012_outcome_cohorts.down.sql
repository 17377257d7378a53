ALTER TABLE outcomes DROP COLUMN cohort;
