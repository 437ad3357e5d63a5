-- The audit log: one row per GraphQL mutation (who, when, which object,
-- the changed fields before and after; secrets never). app_id is NULL for
-- changes outside any app (users, logins, app-less tokens); it is not a
-- foreign key, so a deleted app's record stays.
CREATE TABLE audit_log (
    id          {{.ID}},
    at          {{.TS}}      NOT NULL,
    app_id      BIGINT,
    app         VARCHAR(64)  NOT NULL DEFAULT '',
    user_id     BIGINT,
    actor       VARCHAR(64)  NOT NULL DEFAULT '',
    token_name  VARCHAR(128) NOT NULL DEFAULT '',
    client_addr VARCHAR(64)  NOT NULL DEFAULT '',
    action      VARCHAR(64)  NOT NULL,
    object_type VARCHAR(32)  NOT NULL DEFAULT '',
    object_id   VARCHAR(64)  NOT NULL DEFAULT '',
    object_name VARCHAR(255) NOT NULL DEFAULT '',
    outcome     VARCHAR(32)  NOT NULL,
    changes     {{.JSON}}    NOT NULL
);
--bun:split
CREATE INDEX audit_log_by_app ON audit_log (app_id, id);
