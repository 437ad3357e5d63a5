-- The API's task list (db/tasklist.go): one attempt's tasks of a status, by
-- id, for keyset paging, and the counts by status as an index-only scan,
-- however many tasks an instance has. tasks_by_instance lacks the attempt,
-- so without this both would read every earlier attempt's rows too, and the
-- counts would visit the table for each row.
CREATE INDEX tasks_by_attempt ON tasks (instance_id, instance_attempt, status, id);
