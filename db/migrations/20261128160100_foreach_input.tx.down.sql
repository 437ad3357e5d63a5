ALTER TABLE workflow_node_runs DROP COLUMN input;
