ALTER TABLE instances DROP COLUMN no_worker;
