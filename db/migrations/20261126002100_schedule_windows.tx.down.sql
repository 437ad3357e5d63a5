DROP INDEX jobs_by_calendar;
--bun:split
ALTER TABLE jobs DROP COLUMN excluded_dates;
--bun:split
ALTER TABLE jobs DROP COLUMN calendar_id;
--bun:split
ALTER TABLE jobs DROP COLUMN schedule_window;
--bun:split
DROP TABLE calendars;
