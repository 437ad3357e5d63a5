ALTER TABLE workflow_instances DROP COLUMN parent_generation;
--bun:split
ALTER TABLE workflow_instances DROP COLUMN parent_item;
