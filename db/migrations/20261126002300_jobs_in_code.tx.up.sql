-- Jobs declared in a worker's code: managed_by names the declared set a
-- job belongs to (NULL: made through the API or console). A worker that
-- declares the set creates, updates and disables the set's jobs.
ALTER TABLE jobs ADD COLUMN managed_by VARCHAR(128);
--bun:split
CREATE INDEX jobs_by_managed_by ON jobs (app_id, managed_by);
