ALTER TABLE calendars DROP COLUMN managed_source;
--bun:split
ALTER TABLE calendars DROP COLUMN managed_by;
--bun:split
ALTER TABLE workflows DROP COLUMN managed_source;
--bun:split
ALTER TABLE workflows DROP COLUMN managed_by;
--bun:split
ALTER TABLE jobs DROP COLUMN managed_source;
