ALTER TABLE workflow_instances DROP COLUMN deadline;
--bun:split
ALTER TABLE workflow_instances DROP COLUMN timeout_ms;
--bun:split
ALTER TABLE workflows DROP COLUMN timeout_ms;
