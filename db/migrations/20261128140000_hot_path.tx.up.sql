-- What every fire, task and runJob writes, made cheaper (issue 24). An
-- UPDATE that changes an indexed column adds an entry to EVERY index of
-- the table, so each index on instances and tasks is paid for on every
-- transition of every row.
--
-- 1. Two instances indexes whose key is NULL for most rows: the
--    idempotency key (only runJob calls that give one have it) and
--    finished_at (NULL while the instance runs). Their long runs of
--    (job, NULL) and (app, NULL) entries cost every insert and update;
--    nothing looks rows up by a NULL key, so they hold the others only.
DROP INDEX instances_idempotency;
--bun:split
CREATE UNIQUE INDEX instances_idempotency ON instances (job_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
--bun:split
DROP INDEX instances_by_app_finished;
--bun:split
CREATE INDEX instances_by_app_finished ON instances (app_id, finished_at) WHERE finished_at IS NOT NULL;
--bun:split
-- The trigger loop's pass reads the WAITING instances it did not put on
-- its wheel itself (API runs, retries, catch-ups), not the window's fires
-- it recorded ahead: an index of the few that are not scheduled fires.
CREATE INDEX instances_waiting_unscheduled ON instances (app_id, trigger_at) WHERE status = 'WAITING' AND trigger_type <> 'SCHEDULE';
--bun:split
-- The app is the job's: app deletion reaches instances through jobs (ON
-- DELETE CASCADE), and the key's check locked the app's one row for every
-- instance inserted, from every transaction that inserts some.
{{if .Postgres}}ALTER TABLE instances DROP CONSTRAINT instances_app_id_fkey;{{else}}SELECT 1;{{end}}
--bun:split
-- 2. tasks_by_attempt (instance_id, instance_attempt, status, id) serves
--    every read tasks_by_instance (instance_id, status, id) served, since
--    the readers know the attempt; tasks_by_worker served only the busy
--    slots of the dashboard and the metrics, which the workers'
--    heartbeats now say (workers.metrics running: the tasks a worker
--    holds).
DROP INDEX tasks_by_instance;
--bun:split
DROP INDEX tasks_by_worker;
--bun:split
-- 3. task_counts keeps the counts of the kinds an instance has many of
--    (MAP, BROADCAST) and no longer of the few an attempt has one of
--    (ROOT, PRE, POST, REDUCE), which this index counts instead: a
--    STANDALONE instance's task cost three task_counts writes (and their
--    foreign-key checks) on its way from inserted to finished.
CREATE INDEX tasks_singles ON tasks (instance_id, instance_attempt, status) WHERE kind IN ('ROOT', 'PRE', 'POST', 'REDUCE');
--bun:split
{{if .Postgres}}
CREATE OR REPLACE FUNCTION task_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO task_counts (instance_id, instance_attempt, status, n)
    SELECT instance_id, instance_attempt, status, COUNT(*) FROM new_tasks
    WHERE kind IN ('MAP', 'BROADCAST')
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
        SELECT instance_id, instance_attempt, status, -1 AS d FROM old_tasks WHERE kind IN ('MAP', 'BROADCAST')
        UNION ALL
        SELECT instance_id, instance_attempt, status, 1 AS d FROM new_tasks WHERE kind IN ('MAP', 'BROADCAST')
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
WHEN new.kind IN ('MAP', 'BROADCAST')
BEGIN
    INSERT INTO task_counts (instance_id, instance_attempt, status, n)
    VALUES (new.instance_id, new.instance_attempt, new.status, 1)
    ON CONFLICT (instance_id, instance_attempt, status) DO UPDATE SET n = n + 1;
END;
--bun:split
CREATE TRIGGER task_counts_update AFTER UPDATE OF status, instance_attempt, instance_id ON tasks
WHEN new.kind IN ('MAP', 'BROADCAST') AND (old.status <> new.status OR old.instance_attempt <> new.instance_attempt OR old.instance_id <> new.instance_id)
BEGIN
    UPDATE task_counts SET n = n - 1
    WHERE instance_id = old.instance_id AND instance_attempt = old.instance_attempt AND status = old.status;
    INSERT INTO task_counts (instance_id, instance_attempt, status, n)
    VALUES (new.instance_id, new.instance_attempt, new.status, 1)
    ON CONFLICT (instance_id, instance_attempt, status) DO UPDATE SET n = n + 1;
END;
{{end}}
--bun:split
-- The counts kept so far of the kinds no longer kept.
UPDATE task_counts SET n = n - (
    SELECT COUNT(*) FROM tasks AS t
    WHERE t.instance_id = task_counts.instance_id AND t.instance_attempt = task_counts.instance_attempt
      AND t.status = task_counts.status AND t.kind IN ('ROOT', 'PRE', 'POST', 'REDUCE'));
--bun:split
DELETE FROM task_counts WHERE n = 0;
