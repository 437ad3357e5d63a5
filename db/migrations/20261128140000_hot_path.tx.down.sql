{{if .Postgres}}
CREATE OR REPLACE FUNCTION task_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO task_counts (instance_id, instance_attempt, status, n)
    SELECT instance_id, instance_attempt, status, COUNT(*) FROM new_tasks
    GROUP BY instance_id, instance_attempt, status
    ORDER BY instance_id, instance_attempt, status
    ON CONFLICT (instance_id, instance_attempt, status) DO UPDATE SET n = task_counts.n + excluded.n;
    RETURN NULL;
END $$;
--bun:split
CREATE OR REPLACE FUNCTION task_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO task_counts (instance_id, instance_attempt, status, n)
    SELECT instance_id, instance_attempt, status, SUM(d) FROM (
        SELECT instance_id, instance_attempt, status, -1 AS d FROM old_tasks
        UNION ALL
        SELECT instance_id, instance_attempt, status, 1 AS d FROM new_tasks
    ) AS moved
    GROUP BY instance_id, instance_attempt, status
    HAVING SUM(d) <> 0
    ORDER BY instance_id, instance_attempt, status
    ON CONFLICT (instance_id, instance_attempt, status) DO UPDATE SET n = task_counts.n + excluded.n;
    RETURN NULL;
END $$;
{{else}}
DROP TRIGGER task_counts_insert;
--bun:split
DROP TRIGGER task_counts_update;
--bun:split
CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks
BEGIN
    INSERT INTO task_counts (instance_id, instance_attempt, status, n)
    VALUES (new.instance_id, new.instance_attempt, new.status, 1)
    ON CONFLICT (instance_id, instance_attempt, status) DO UPDATE SET n = n + 1;
END;
--bun:split
CREATE TRIGGER task_counts_update AFTER UPDATE OF status, instance_attempt, instance_id ON tasks
WHEN old.status <> new.status OR old.instance_attempt <> new.instance_attempt OR old.instance_id <> new.instance_id
BEGIN
    UPDATE task_counts SET n = n - 1
    WHERE instance_id = old.instance_id AND instance_attempt = old.instance_attempt AND status = old.status;
    INSERT INTO task_counts (instance_id, instance_attempt, status, n)
    VALUES (new.instance_id, new.instance_attempt, new.status, 1)
    ON CONFLICT (instance_id, instance_attempt, status) DO UPDATE SET n = n + 1;
END;
{{end}}
--bun:split
INSERT INTO task_counts (instance_id, instance_attempt, status, n)
SELECT instance_id, instance_attempt, status, COUNT(*) FROM tasks
WHERE kind IN ('ROOT', 'PRE', 'POST', 'REDUCE')
GROUP BY instance_id, instance_attempt, status
ON CONFLICT (instance_id, instance_attempt, status) DO UPDATE SET n = task_counts.n + excluded.n;
--bun:split
DROP INDEX tasks_singles;
--bun:split
CREATE INDEX tasks_by_worker ON tasks (worker_id, status) WHERE status IN ('DISPATCHED', 'RUNNING');
--bun:split
CREATE INDEX tasks_by_instance ON tasks (instance_id, status, id);
--bun:split
DROP INDEX instances_waiting_unscheduled;
--bun:split
{{if .Postgres}}ALTER TABLE instances ADD CONSTRAINT instances_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) ON DELETE CASCADE;{{else}}SELECT 1;{{end}}
--bun:split
DROP INDEX instances_by_app_finished;
--bun:split
CREATE INDEX instances_by_app_finished ON instances (app_id, finished_at);
--bun:split
DROP INDEX instances_idempotency;
--bun:split
CREATE UNIQUE INDEX instances_idempotency ON instances (job_id, idempotency_key);
