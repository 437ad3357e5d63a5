-- Pools (docs/design.md §5.9): named sets of slots per app that jobs and
-- workflow nodes take while they run (Airflow pools, Argo semaphores; a
-- pool of one slot is a mutex). A job names its pool and the slots it
-- takes; an instance records the pool it takes (instances.pool,
-- pool_slots), set when the owner first decides it (or by the workflow
-- engine for a node that names its own pool), so a new owner rebuilds
-- each pool's holders from its DISPATCHED and RUNNING instances and its
-- queue from the WAITING instances marked POOL_FULL.
CREATE TABLE pools (
    id          {{.ID}},
    app_id      BIGINT       NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name        VARCHAR(128) NOT NULL,
    description TEXT         NOT NULL DEFAULT '',
    slots       INTEGER      NOT NULL,
    created_at  {{.TS}}      NOT NULL,
    updated_at  {{.TS}}      NOT NULL,
    UNIQUE (app_id, name)
);
--bun:split
ALTER TABLE jobs ADD COLUMN pool VARCHAR(128) NOT NULL DEFAULT '';
--bun:split
ALTER TABLE jobs ADD COLUMN pool_slots INTEGER NOT NULL DEFAULT 1;
--bun:split
ALTER TABLE instances ADD COLUMN pool VARCHAR(128);
--bun:split
ALTER TABLE instances ADD COLUMN pool_slots INTEGER;
--bun:split
CREATE INDEX instances_by_pool ON instances (app_id, pool, status) WHERE pool IS NOT NULL;
