DROP INDEX instances_backfill;
--bun:split
ALTER TABLE instances DROP COLUMN logical_time;
--bun:split
ALTER TABLE instances DROP COLUMN backfill_id;
--bun:split
DROP INDEX workflow_instances_backfill;
--bun:split
ALTER TABLE workflow_instances DROP COLUMN logical_time;
--bun:split
ALTER TABLE workflow_instances DROP COLUMN backfill_id;
--bun:split
DROP TABLE backfills;
