{{if .Postgres}}
DROP TRIGGER task_counts_update ON tasks;
--bun:split
DROP TRIGGER task_counts_insert ON tasks;
--bun:split
DROP FUNCTION task_counts_updated();
--bun:split
DROP FUNCTION task_counts_inserted();
{{else}}
DROP TRIGGER task_counts_update;
--bun:split
DROP TRIGGER task_counts_insert;
{{end}}
--bun:split
DROP TABLE task_counts;
