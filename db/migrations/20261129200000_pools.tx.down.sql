DROP INDEX instances_by_pool;
--bun:split
ALTER TABLE instances DROP COLUMN pool_slots;
--bun:split
ALTER TABLE instances DROP COLUMN pool;
--bun:split
ALTER TABLE jobs DROP COLUMN pool_slots;
--bun:split
ALTER TABLE jobs DROP COLUMN pool;
--bun:split
DROP TABLE pools;
