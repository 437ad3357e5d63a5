-- A FOREACH stores what its elements are given — the run's context and the
-- upstream results — once, on its node row (issue 26, item 12), not a copy
-- in each element's instance: those keep only their element and a mark,
-- and are given the node's input when read.
ALTER TABLE workflow_node_runs ADD COLUMN input {{.JSON}};
