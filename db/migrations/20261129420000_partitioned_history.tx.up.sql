-- A run's history (its tasks and its log lines) is the bulk of the
-- database: one 10-million-task instance left an 8.2 GB tasks table that
-- retention then deleted row by row. On PostgreSQL both tables become
-- RANGE-partitioned by instance_id, with the same bounds ("generations"
-- of instance ids), so all of one instance's rows live in the partitions
-- of one generation, and retention drops a generation whose instances are
-- all past retention in one statement (db/partitions.go, docs/retention.md).
--
-- The existing tables become the first generation as they are: renamed,
-- attached under a new partitioned parent (ATTACH scans them once to check
-- the bound; their rows are not copied), covering every instance id up to
-- the current maximum rounded up to the next 100,000; the next generation
-- is created here too, and the server creates the ones after it
-- (server/platform/partitions). Their indexes are attached to the parent's
-- indexes of the same names, except the primary key, which must hold the
-- partition key: (instance_id, id), built once here.
--
-- instances stays one table: it is one row per run, its uniqueness rules
-- (one fire per job and time, idempotency keys, backfill times) cannot
-- include a partition key, and retention deletes its rows cheaply once
-- their tasks and lines went with their partitions. Attempts, task counts
-- and map requests are a few rows per instance and go with it (cascade).
--
-- SQLite has no partitioning and needs none: this is a no-op there.
-- Days an app keeps its finished instances, tasks and log lines; NULL: the
-- server's retention (-retention).
ALTER TABLE apps ADD COLUMN retention_days INTEGER;
--bun:split
{{if .Postgres}}
DO $$
DECLARE
    width CONSTANT bigint := 100000;
    b0 bigint := (COALESCE((SELECT max(id) FROM instances), 0) / width + 1) * width;
BEGIN
    ALTER TABLE tasks RENAME TO tasks_g0;
    ALTER TABLE tasks_g0 DROP CONSTRAINT tasks_pkey;
    ALTER INDEX tasks_by_attempt RENAME TO tasks_g0_by_attempt;
    ALTER INDEX tasks_singles RENAME TO tasks_g0_singles;
    -- Transition-table triggers live on the partitioned parent (below).
    DROP TRIGGER task_counts_insert ON tasks_g0;
    DROP TRIGGER task_counts_update ON tasks_g0;
    CREATE TABLE tasks (LIKE tasks_g0 INCLUDING DEFAULTS INCLUDING STORAGE) PARTITION BY RANGE (instance_id);
    -- Owned by the parent, so dropping a generation keeps the sequence.
    ALTER SEQUENCE tasks_id_seq OWNED BY tasks.id;
    EXECUTE format('ALTER TABLE tasks ATTACH PARTITION tasks_g0 FOR VALUES FROM (MINVALUE) TO (%s)', b0);
    ALTER TABLE tasks ADD CONSTRAINT tasks_pkey PRIMARY KEY (instance_id, id);
    CREATE INDEX tasks_by_attempt ON tasks (instance_id, instance_attempt, status, id);
    CREATE INDEX tasks_singles ON tasks (instance_id, instance_attempt, status) WHERE kind IN ('ROOT', 'PRE', 'POST', 'REDUCE');
    ALTER TABLE tasks_g0 RENAME CONSTRAINT tasks_instance_id_fkey TO tasks_g0_instance_id_fkey;
    ALTER TABLE tasks ADD CONSTRAINT tasks_instance_id_fkey FOREIGN KEY (instance_id) REFERENCES instances (id) ON DELETE CASCADE;
    CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_tasks
        FOR EACH STATEMENT EXECUTE FUNCTION task_counts_inserted();
    CREATE TRIGGER task_counts_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_tasks NEW TABLE AS new_tasks
        FOR EACH STATEMENT EXECUTE FUNCTION task_counts_updated();

    ALTER TABLE instance_logs RENAME TO instance_logs_g0;
    ALTER TABLE instance_logs_g0 DROP CONSTRAINT instance_logs_pkey;
    ALTER TABLE instance_logs_g0 RENAME CONSTRAINT instance_logs_instance_id_seq_key TO instance_logs_g0_instance_id_seq_key;
    ALTER TABLE instance_logs_g0 RENAME CONSTRAINT instance_logs_instance_id_worker_id_worker_seq_key TO instance_logs_g0_instance_id_worker_id_worker_seq_key;
    CREATE TABLE instance_logs (LIKE instance_logs_g0 INCLUDING DEFAULTS INCLUDING STORAGE) PARTITION BY RANGE (instance_id);
    ALTER SEQUENCE instance_logs_id_seq OWNED BY instance_logs.id;
    EXECUTE format('ALTER TABLE instance_logs ATTACH PARTITION instance_logs_g0 FOR VALUES FROM (MINVALUE) TO (%s)', b0);
    ALTER TABLE instance_logs ADD CONSTRAINT instance_logs_pkey PRIMARY KEY (instance_id, id);
    ALTER TABLE instance_logs ADD CONSTRAINT instance_logs_instance_id_seq_key UNIQUE (instance_id, seq);
    ALTER TABLE instance_logs ADD CONSTRAINT instance_logs_instance_id_worker_id_worker_seq_key UNIQUE (instance_id, worker_id, worker_seq);
    ALTER TABLE instance_logs_g0 RENAME CONSTRAINT instance_logs_instance_id_fkey TO instance_logs_g0_instance_id_fkey;
    ALTER TABLE instance_logs ADD CONSTRAINT instance_logs_instance_id_fkey FOREIGN KEY (instance_id) REFERENCES instances (id) ON DELETE CASCADE;

    -- The next generation, so new instances have somewhere to go before a
    -- server has created any.
    EXECUTE format('CREATE TABLE tasks_g%s PARTITION OF tasks FOR VALUES FROM (%s) TO (%s)', b0, b0, b0 + width);
    EXECUTE format('CREATE TABLE instance_logs_g%s PARTITION OF instance_logs FOR VALUES FROM (%s) TO (%s)', b0, b0, b0 + width);
END $$;
{{else}}
SELECT 1;
{{end}}
