ALTER TABLE settlements DROP COLUMN rules, DROP COLUMN rules_fingerprint;
