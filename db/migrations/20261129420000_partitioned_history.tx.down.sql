-- Back to one plain table each: the rows are copied out of the partitions.
{{if .Postgres}}
DO $$
BEGIN
    CREATE TABLE tasks_flat (LIKE tasks INCLUDING DEFAULTS INCLUDING STORAGE);
    INSERT INTO tasks_flat SELECT * FROM tasks;
    ALTER SEQUENCE tasks_id_seq OWNED BY tasks_flat.id;
    DROP TABLE tasks;
    ALTER TABLE tasks_flat RENAME TO tasks;
    ALTER TABLE tasks ADD CONSTRAINT tasks_pkey PRIMARY KEY (id);
    CREATE INDEX tasks_by_attempt ON tasks (instance_id, instance_attempt, status, id);
    CREATE INDEX tasks_singles ON tasks (instance_id, instance_attempt, status) WHERE kind IN ('ROOT', 'PRE', 'POST', 'REDUCE');
    ALTER TABLE tasks ADD CONSTRAINT tasks_instance_id_fkey FOREIGN KEY (instance_id) REFERENCES instances (id) ON DELETE CASCADE;
    CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_tasks
        FOR EACH STATEMENT EXECUTE FUNCTION task_counts_inserted();
    CREATE TRIGGER task_counts_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_tasks NEW TABLE AS new_tasks
        FOR EACH STATEMENT EXECUTE FUNCTION task_counts_updated();

    CREATE TABLE instance_logs_flat (LIKE instance_logs INCLUDING DEFAULTS INCLUDING STORAGE);
    INSERT INTO instance_logs_flat SELECT * FROM instance_logs;
    ALTER SEQUENCE instance_logs_id_seq OWNED BY instance_logs_flat.id;
    DROP TABLE instance_logs;
    ALTER TABLE instance_logs_flat RENAME TO instance_logs;
    ALTER TABLE instance_logs ADD CONSTRAINT instance_logs_pkey PRIMARY KEY (id);
    ALTER TABLE instance_logs ADD CONSTRAINT instance_logs_instance_id_seq_key UNIQUE (instance_id, seq);
    ALTER TABLE instance_logs ADD CONSTRAINT instance_logs_instance_id_worker_id_worker_seq_key UNIQUE (instance_id, worker_id, worker_seq);
    ALTER TABLE instance_logs ADD CONSTRAINT instance_logs_instance_id_fkey FOREIGN KEY (instance_id) REFERENCES instances (id) ON DELETE CASCADE;
END $$;
{{else}}
SELECT 1;
{{end}}
--bun:split
ALTER TABLE apps DROP COLUMN retention_days;
