-- A FOREACH looks up which of its elements have an instance (or a nested
-- run) yet, each time it makes more (WorkflowElementListUnmade, …Unrun):
-- by run, node, generation and element. Indexed by run alone, PostgreSQL
-- answered it by scanning the run's instances once per element, so a
-- FOREACH of 10,000 elements took minutes per batch, holding its run's
-- lock: stopping the run timed out (the attacker probe, docs/security.md).
-- The new indexes lead with the old ones' columns, which they replace.
CREATE INDEX instances_by_workflow_item ON instances (workflow_instance_id, workflow_node_id, workflow_generation, workflow_item)
    WHERE workflow_instance_id IS NOT NULL;
--bun:split
DROP INDEX instances_by_workflow_instance;
--bun:split
CREATE INDEX workflow_instances_children_by_item ON workflow_instances (parent_instance_id, parent_node_key, parent_generation, parent_item);
--bun:split
DROP INDEX workflow_instances_children;
