-- The shorter column cannot hold LEAST_RECENTLY_USED: those jobs go back to
-- the default strategy.
UPDATE jobs SET dispatch_strategy = 'HEALTH_FIRST' WHERE dispatch_strategy = 'LEAST_RECENTLY_USED';
{{if .Postgres}}ALTER TABLE jobs ALTER COLUMN dispatch_strategy TYPE VARCHAR(16);{{end}}
