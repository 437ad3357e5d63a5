ALTER TABLE audit_log DROP COLUMN error_message;
