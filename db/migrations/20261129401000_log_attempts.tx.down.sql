ALTER TABLE instance_logs DROP COLUMN attempt;
