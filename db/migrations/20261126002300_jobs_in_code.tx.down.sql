DROP INDEX jobs_by_managed_by;
--bun:split
ALTER TABLE jobs DROP COLUMN managed_by;
