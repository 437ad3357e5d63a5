DROP TABLE workflow_foreach_elements;
--bun:split
ALTER TABLE workflow_instances DROP COLUMN budget_used;
--bun:split
ALTER TABLE workflow_instances DROP COLUMN budget;
--bun:split
ALTER TABLE workflow_instances DROP COLUMN root_instance_id;
--bun:split
ALTER TABLE apps DROP COLUMN workflow_budget;
