ALTER TABLE instances DROP COLUMN job_version;
--bun:split
DROP TABLE job_versions;
--bun:split
ALTER TABLE jobs DROP COLUMN version;
