-- runWorkflow's idempotency key: one run per workflow and key, enforced by
-- the database so concurrent calls with the same key create exactly one
-- run. (NULL keys, the usual case, are all distinct.) A key is honoured
-- for 24 h; after that the API releases it from the old run before
-- recording a new one (db.WorkflowInstanceCreateKeyed).
CREATE UNIQUE INDEX workflow_instances_idempotency ON workflow_instances (workflow_id, idempotency_key);
