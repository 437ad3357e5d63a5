-- runJob's idempotency key, on the instance row itself so that runJob
-- stays one INSERT: one instance per job and key, enforced by the
-- database so concurrent calls with the same key create exactly one
-- instance. (NULL keys, every scheduled fire and most API calls, are all
-- distinct.) A key is honoured for 24 h; after that the API releases it
-- from the old instance before recording a new one
-- (db.InstanceCreateKeyed).
ALTER TABLE instances ADD COLUMN idempotency_key VARCHAR(128);
--bun:split
CREATE UNIQUE INDEX instances_idempotency ON instances (job_id, idempotency_key);
