-- An instance attempt's tasks by status, kept by the database itself so the
-- counts cost the same at ten tasks or ten million: the owner reads them
-- when it adopts an app (a COUNT ... GROUP BY over 10M rows took 16 s,
-- longer than the driver's read timeout, so the take-over failed), and the
-- API shows them live. Triggers on tasks keep them in the transaction that
-- moves the tasks, so they never disagree with the rows; no code path has
-- to remember them. Tasks are deleted only with their instance, and the
-- counts go with it (the foreign key), so there is no DELETE trigger.
CREATE TABLE task_counts (
    instance_id      BIGINT      NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
    instance_attempt INTEGER     NOT NULL,
    status           VARCHAR(16) NOT NULL,
    n                BIGINT      NOT NULL,
    PRIMARY KEY (instance_id, instance_attempt, status)
);
--bun:split
INSERT INTO task_counts (instance_id, instance_attempt, status, n)
SELECT instance_id, instance_attempt, status, COUNT(*) FROM tasks
GROUP BY instance_id, instance_attempt, status;
--bun:split
{{if .Postgres}}
-- PostgreSQL: statement-level triggers over the transition tables, so a
-- statement that inserts or moves thousands of tasks adds one row per
-- (instance, attempt, status) it touched, not one upsert per task. Rows
-- are locked in key order, so two statements never deadlock on them.
CREATE FUNCTION task_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO task_counts (instance_id, instance_attempt, status, n)
    SELECT instance_id, instance_attempt, status, COUNT(*) FROM new_tasks
    GROUP BY instance_id, instance_attempt, status
    ORDER BY instance_id, instance_attempt, status
    ON CONFLICT (instance_id, instance_attempt, status) DO UPDATE SET n = task_counts.n + excluded.n;
    RETURN NULL;
END $$;
--bun:split
CREATE FUNCTION task_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
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
--bun:split
CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks
    REFERENCING NEW TABLE AS new_tasks
    FOR EACH STATEMENT EXECUTE FUNCTION task_counts_inserted();
--bun:split
CREATE TRIGGER task_counts_update AFTER UPDATE ON tasks
    REFERENCING OLD TABLE AS old_tasks NEW TABLE AS new_tasks
    FOR EACH STATEMENT EXECUTE FUNCTION task_counts_updated();
{{else}}
-- SQLite has only row triggers; it is the single-server default, where
-- one upsert per task is cheap.
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
