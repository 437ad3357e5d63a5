-- The message a refused mutation was answered with, so the audit log says
-- why it was refused, not only its code (issue 28 defect 5).
ALTER TABLE audit_log ADD COLUMN error_message TEXT NOT NULL DEFAULT '';
