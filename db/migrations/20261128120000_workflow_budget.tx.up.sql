-- What one workflow instance may create, across its nested instances
-- (issue 25, item 3): the app's budget per instance (nodes plus FOREACH
-- elements); a root instance records the budget it started with and what
-- it has used, and each nested instance names its root (no foreign key:
-- a nested instance goes with its parent, parent_instance_id cascading).
ALTER TABLE apps ADD COLUMN workflow_budget INTEGER NOT NULL DEFAULT 100000;
--bun:split
ALTER TABLE workflow_instances ADD COLUMN root_instance_id BIGINT;
--bun:split
ALTER TABLE workflow_instances ADD COLUMN budget INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE workflow_instances ADD COLUMN budget_used INTEGER NOT NULL DEFAULT 0;
--bun:split
-- A FOREACH's elements, stored once when its expression is evaluated; its
-- job instances are created from them in batches as places free.
CREATE TABLE workflow_foreach_elements (
    node_run_id BIGINT    NOT NULL REFERENCES workflow_node_runs (id) ON DELETE CASCADE,
    generation  INTEGER   NOT NULL,
    item        INTEGER   NOT NULL,
    element     {{.JSON}} NOT NULL,
    PRIMARY KEY (node_run_id, generation, item)
);
