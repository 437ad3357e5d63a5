ALTER TABLE workflows DROP COLUMN alarm;
--bun:split
DROP TABLE alarm_history;
--bun:split
DROP TABLE alarm_states;
