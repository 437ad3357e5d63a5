DROP INDEX workflow_instances_upstream_instance;
--bun:split
DROP INDEX workflow_instances_upstream_run;
--bun:split
ALTER TABLE workflow_instances DROP COLUMN upstream_instance_id;
--bun:split
ALTER TABLE workflow_instances DROP COLUMN upstream_run_id;
--bun:split
ALTER TABLE workflows DROP COLUMN has_downstream;
--bun:split
ALTER TABLE jobs DROP COLUMN has_downstream;
--bun:split
DROP TABLE workflow_links;
