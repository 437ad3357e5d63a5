-- LEAST_RECENTLY_USED (19 characters) did not fit jobs.dispatch_strategy
-- VARCHAR(16): PostgreSQL refused such a job. SQLite does not enforce the
-- length, so there is nothing to change there.
{{if .Postgres}}ALTER TABLE jobs ALTER COLUMN dispatch_strategy TYPE VARCHAR(32);{{else}}SELECT 1;{{end}}
