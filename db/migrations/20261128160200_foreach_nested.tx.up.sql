-- A FOREACH over a nested workflow (issue 26, item 9) runs one nested run
-- per element: the run names the element (parent_item) and the generation
-- of the FOREACH it belongs to (parent_generation); a retry moves the runs
-- it keeps to the next generation.
ALTER TABLE workflow_instances ADD COLUMN parent_item INTEGER;
--bun:split
ALTER TABLE workflow_instances ADD COLUMN parent_generation INTEGER;
