-- Configuration as code (docs/config-as-code.md): jobs, workflows and
-- calendars applied from YAML files (jobwheel apply, applyConfig) belong to
-- a file set, as jobs declared in a worker's code belong to a code set.
-- managed_by names the set, managed_source says which kind it is (CODE or
-- FILES; NULL with managed_by: made through the API or console), so a code
-- set never takes over a file set's job, nor a file set a code set's.
ALTER TABLE jobs ADD COLUMN managed_source VARCHAR(8);
--bun:split
UPDATE jobs SET managed_source = 'CODE' WHERE managed_by IS NOT NULL;
--bun:split
ALTER TABLE workflows ADD COLUMN managed_by VARCHAR(128);
--bun:split
ALTER TABLE workflows ADD COLUMN managed_source VARCHAR(8);
--bun:split
ALTER TABLE calendars ADD COLUMN managed_by VARCHAR(128);
--bun:split
ALTER TABLE calendars ADD COLUMN managed_source VARCHAR(8);
