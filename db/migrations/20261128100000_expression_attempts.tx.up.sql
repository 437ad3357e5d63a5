-- A DECISION's or FOREACH's expression is evaluated outside the engine's
-- transaction (issue 25): the node is RUNNING while it is, and attempts
-- counts the evaluations begun for its generation, recorded before each,
-- so one that never ends (the server stopping during it each time) fails
-- the node instead of being begun again on every restart.
ALTER TABLE workflow_node_runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
