-- Overlap policies, priority and retry back-off (docs/design.md §5.5,
-- §6.5). A job's overlap_policy says what a fire over max_instances does:
-- CANCEL it (as before), QUEUE it (at most max_queued wait, durably: the
-- instance stays WAITING with reason QUEUED), or REPLACE the oldest
-- running instance. priority orders dispatch when workers are short of
-- slots (higher first). Retries wait retry_delay_ms, grown by the factor
-- retry_backoff per retry up to retry_delay_max_ms (0: no cap of the
-- job's own).
ALTER TABLE jobs ADD COLUMN overlap_policy VARCHAR(16) NOT NULL DEFAULT 'CANCEL';
--bun:split
ALTER TABLE jobs ADD COLUMN max_queued INTEGER NOT NULL DEFAULT 10;
--bun:split
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE jobs ADD COLUMN retry_delay_ms BIGINT NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE jobs ADD COLUMN retry_backoff DOUBLE PRECISION NOT NULL DEFAULT 1;
--bun:split
ALTER TABLE jobs ADD COLUMN retry_delay_max_ms BIGINT NOT NULL DEFAULT 0;
--bun:split
-- A task waiting for its retry is not dispatched before not_before (NULL:
-- at once); kept on the row so that a new owner waits too.
ALTER TABLE tasks ADD COLUMN not_before {{.TS}};
