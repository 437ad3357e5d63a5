{{if .Postgres}}
ALTER TABLE instances ADD CONSTRAINT instances_job_id_expected_trigger_at_key UNIQUE (job_id, expected_trigger_at);
--bun:split
DROP INDEX instances_expected;
{{else}}
SELECT 1;
{{end}}
--bun:split
DROP INDEX workflow_instances_backfill;
--bun:split
CREATE UNIQUE INDEX workflow_instances_backfill ON workflow_instances (backfill_id, logical_time);
--bun:split
DROP INDEX instances_backfill;
--bun:split
CREATE UNIQUE INDEX instances_backfill ON instances (backfill_id, logical_time);
