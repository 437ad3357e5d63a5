-- Map messages already stored, by the key the worker gave them: a map
-- re-sent after a lost ack (or to a new owner) must not create its
-- subtasks twice.
CREATE TABLE map_requests (
    instance_id BIGINT       NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
    key         VARCHAR(200) NOT NULL,
    created_at  {{.TS}}      NOT NULL,
    PRIMARY KEY (instance_id, key)
);
