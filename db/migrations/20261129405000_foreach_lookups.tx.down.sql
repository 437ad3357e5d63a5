CREATE INDEX workflow_instances_children ON workflow_instances (parent_instance_id);
--bun:split
DROP INDEX workflow_instances_children_by_item;
--bun:split
CREATE INDEX instances_by_workflow_instance ON instances (workflow_instance_id) WHERE workflow_instance_id IS NOT NULL;
--bun:split
DROP INDEX instances_by_workflow_item;
