ALTER TABLE tasks DROP COLUMN not_before;
--bun:split
ALTER TABLE jobs DROP COLUMN retry_delay_max_ms;
--bun:split
ALTER TABLE jobs DROP COLUMN retry_backoff;
--bun:split
ALTER TABLE jobs DROP COLUMN retry_delay_ms;
--bun:split
ALTER TABLE jobs DROP COLUMN priority;
--bun:split
ALTER TABLE jobs DROP COLUMN max_queued;
--bun:split
ALTER TABLE jobs DROP COLUMN overlap_policy;
