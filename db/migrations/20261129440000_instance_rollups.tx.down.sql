DROP TABLE instance_rollup_marks;
--bun:split
DROP TABLE instance_rollups;
