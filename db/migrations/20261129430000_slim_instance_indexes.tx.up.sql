-- Every insert into instances, and every one of its updates (none is HOT:
-- status and updated_at are indexed), adds an entry to each index whose
-- row it is in (docs/design.md §13.1). A unique index over a column that
-- is NULL for most rows holds nothing it is ever asked for: NULLs never
-- conflict. These are made partial, so the rows that do not have the key
-- cost them nothing:
--
-- - backfill_id: only a backfill's runs have it (instances and workflow
--   runs);
-- - expected_trigger_at: only scheduled fires have it; an API run, a
--   retry's catch-up, a workflow node's instance do not. On SQLite the
--   rule is the table's UNIQUE constraint, which SQLite cannot drop; it
--   stays.
--
-- ON CONFLICT targets name the predicate (db/backfills.go,
-- db/instances.go), as PostgreSQL infers a partial index only then.
DROP INDEX instances_backfill;
--bun:split
CREATE UNIQUE INDEX instances_backfill ON instances (backfill_id, logical_time) WHERE backfill_id IS NOT NULL;
--bun:split
DROP INDEX workflow_instances_backfill;
--bun:split
CREATE UNIQUE INDEX workflow_instances_backfill ON workflow_instances (backfill_id, logical_time) WHERE backfill_id IS NOT NULL;
--bun:split
{{if .Postgres}}
CREATE UNIQUE INDEX instances_expected ON instances (job_id, expected_trigger_at) WHERE expected_trigger_at IS NOT NULL;
--bun:split
ALTER TABLE instances DROP CONSTRAINT instances_job_id_expected_trigger_at_key;
{{else}}
SELECT 1;
{{end}}
