DROP INDEX instances_idempotency;
--bun:split
ALTER TABLE instances DROP COLUMN idempotency_key;
