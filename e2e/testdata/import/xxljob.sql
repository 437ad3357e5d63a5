-- An xxl-job 3.x database for TestImport (e2e/import_test.go): the tables
-- and columns docs/import.md maps, with rows covering every route, block
-- strategy, GLUE type, schedule type and misfire strategy xxl-job
-- documents at least once, child jobs, and GLUE sources with versions.

CREATE TABLE xxl_job_group (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  app_name VARCHAR(64) NOT NULL,
  name VARCHAR(64) NOT NULL,
  address_type TINYINT NOT NULL DEFAULT 0,
  address_list TEXT,
  access_token VARCHAR(255),
  update_time DATETIME,
  UNIQUE KEY uk_app_name (app_name)
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE xxl_job_info (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job_group INT NOT NULL,
  name VARCHAR(255) NOT NULL,
  author VARCHAR(64),
  alarm_email VARCHAR(255),
  schedule_type VARCHAR(50) NOT NULL DEFAULT 'NONE',
  schedule_conf VARCHAR(128),
  misfire_strategy VARCHAR(50) NOT NULL DEFAULT 'DO_NOTHING',
  executor_route_strategy VARCHAR(50),
  executor_handler VARCHAR(255),
  executor_param TEXT,
  executor_block_strategy VARCHAR(50),
  executor_timeout INT NOT NULL DEFAULT 0,
  executor_fail_retry_count INT NOT NULL DEFAULT 0,
  glue_type VARCHAR(50) NOT NULL,
  glue_source MEDIUMTEXT,
  glue_remark VARCHAR(128),
  glue_updatetime DATETIME,
  child_jobid VARCHAR(255),
  trigger_status TINYINT NOT NULL DEFAULT 0,
  trigger_last_time BIGINT NOT NULL DEFAULT 0,
  trigger_next_time BIGINT NOT NULL DEFAULT 0,
  add_time DATETIME,
  update_time DATETIME
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE xxl_job_logglue (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job_id INT NOT NULL,
  glue_type VARCHAR(50),
  glue_source MEDIUMTEXT,
  glue_remark VARCHAR(128) NOT NULL,
  add_time DATETIME,
  update_time DATETIME
) DEFAULT CHARSET = utf8mb4;

INSERT INTO xxl_job_group (id, app_name, name, address_type, address_list, access_token) VALUES
  (1, 'order-executor', '订单执行器', 0, NULL, NULL),
  (2, 'legacy-executor', 'Legacy', 1, 'http://10.0.0.9:9999/', 'default_token');

-- Routes: FIRST LAST ROUND RANDOM CONSISTENT_HASH LEAST_FREQUENTLY_USED LEAST_RECENTLY_USED FAILOVER BUSYOVER SHARDING_BROADCAST.
-- Child jobs: 1 -> 2, 3; 3 -> 4; 4 -> 99 (no such job) and 20 (another executor).
INSERT INTO xxl_job_info (id, job_group, name, author, alarm_email, schedule_type, schedule_conf, misfire_strategy,
    executor_route_strategy, executor_handler, executor_param, executor_block_strategy, executor_timeout,
    executor_fail_retry_count, glue_type, glue_source, glue_remark, child_jobid, trigger_status, add_time) VALUES
  (1, 1, 'order-sync', 'alice', 'ops@example.com,dev@example.com', 'CRON', '0 0/10 * * * ?', 'DO_NOTHING',
    'FIRST', 'orderSyncHandler', NULL, 'SERIAL_EXECUTION', 300, 2, 'BEAN', NULL, NULL, '2,3', 1, '2024-03-01 10:00:00'),
  (2, 1, 'order-archive', 'alice', 'archive@example.com, not-an-address', 'NONE', NULL, 'DO_NOTHING',
    'LAST', 'orderArchiveHandler', NULL, 'DISCARD_LATER', 0, 0, 'BEAN', NULL, NULL, NULL, 0, '2024-03-01 10:00:00'),
  (3, 1, 'order-report', 'bob', NULL, 'NONE', NULL, 'DO_NOTHING',
    'ROUND', NULL, NULL, 'SERIAL_EXECUTION', 0, 0, 'GLUE_SHELL', 'echo "report for $1"', 'first', '4', 0, '2024-03-01 10:00:00'),
  (4, 1, 'order-notify', NULL, NULL, 'NONE', NULL, 'DO_NOTHING',
    'RANDOM', 'notifyHandler', NULL, 'SERIAL_EXECUTION', 0, 0, 'BEAN', NULL, NULL, '99,20', 0, '2024-03-01 10:00:00'),
  (5, 1, 'shell-cleanup', 'carol', NULL, 'FIX_RATE', '3600', 'FIRE_ONCE_NOW',
    'CONSISTENT_HASH', NULL, 'keep=7', 'COVER_EARLY', 0, 0, 'GLUE_SHELL',
    '#!/bin/bash\nset -e\necho "param=$1 shard=$2/$3"\nif [[ -n "$1" ]]; then echo "bash ok"; fi', 'print shards', NULL, 1, '2024-03-01 10:00:00'),
  (6, 1, 'py-stats', 'carol', NULL, 'CRON', '0 30 1 * * ?', 'DO_NOTHING',
    'LEAST_FREQUENTLY_USED', NULL, 'day', 'SERIAL_EXECUTION', 60, 1, 'GLUE_PYTHON',
    '# -*- coding: utf-8 -*-\nimport sys\nprint("stats", sys.argv[1], sys.argv[2], sys.argv[3])', 'argv', NULL, 1, '2024-03-01 10:00:00'),
  (7, 1, 'node-task', NULL, NULL, 'CRON', '0 0 * * * ?', 'DO_NOTHING',
    'LEAST_RECENTLY_USED', NULL, NULL, 'SERIAL_EXECUTION', 0, 0, 'GLUE_NODEJS', 'console.log("node", process.argv[2]);', 'v1', NULL, 0, '2024-03-01 10:00:00'),
  (8, 1, 'ps-task', NULL, NULL, 'NONE', NULL, 'DO_NOTHING',
    'FAILOVER', NULL, NULL, 'SERIAL_EXECUTION', 0, 0, 'GLUE_POWERSHELL', 'Write-Output "ps"', 'v1', NULL, 0, '2024-03-01 10:00:00'),
  (9, 1, 'php-task', NULL, NULL, 'NONE', NULL, 'DO_NOTHING',
    'BUSYOVER', NULL, NULL, 'SERIAL_EXECUTION', 0, 0, 'GLUE_PHP', '<?php echo "php";', 'v1', NULL, 0, '2024-03-01 10:00:00'),
  (10, 1, 'groovy-task', NULL, NULL, 'CRON', '0 0 5 * * ?', 'DO_NOTHING',
    'ROUND', NULL, NULL, 'SERIAL_EXECUTION', 0, 0, 'GLUE_GROOVY',
    'public class DemoGlueJobHandler extends IJobHandler { public void execute() { XxlJobHelper.log("hi"); } }', 'v1', NULL, 1, '2024-03-01 10:00:00'),
  (11, 1, 'shard-job', NULL, NULL, 'CRON', '0 0 3 * * ?', 'DO_NOTHING',
    'SHARDING_BROADCAST', 'shardingJobHandler', 'batch=100', 'SERIAL_EXECUTION', 0, 0, 'BEAN', NULL, NULL, NULL, 1, '2024-03-01 10:00:00'),
  (12, 1, 'py2-task', NULL, NULL, 'NONE', NULL, 'DO_NOTHING',
    'FIRST', NULL, NULL, 'SERIAL_EXECUTION', 0, 0, 'GLUE_PYTHON2', 'print "old"', 'v1', NULL, 0, '2024-03-01 10:00:00'),
  (20, 2, 'legacy-job', NULL, NULL, 'CRON', '0 0 6 * * ? *', 'DO_NOTHING',
    'FIRST', 'legacyHandler', NULL, 'SERIAL_EXECUTION', 0, 0, 'BEAN', NULL, NULL, NULL, 1, '2024-03-01 10:00:00');

-- GLUE versions as xxl-job logs them: every save, the current one last.
INSERT INTO xxl_job_logglue (id, job_id, glue_type, glue_source, glue_remark, add_time) VALUES
  (1, 5, 'GLUE_SHELL', 'echo "cleanup v1"', 'first cut', '2024-03-02 09:00:00'),
  (2, 5, 'GLUE_SHELL', 'echo "cleanup v2"\necho "$1"', 'echo the param', '2024-03-05 18:30:00'),
  (3, 5, 'GLUE_SHELL', '#!/bin/bash\nset -e\necho "param=$1 shard=$2/$3"\nif [[ -n "$1" ]]; then echo "bash ok"; fi', 'print shards', '2024-03-09 11:15:00'),
  (4, 6, 'GLUE_PYTHON', 'print("stats v1")', 'first', '2024-04-01 08:00:00'),
  (5, 6, 'GLUE_PYTHON', '# -*- coding: utf-8 -*-\nimport sys\nprint("stats", sys.argv[1], sys.argv[2], sys.argv[3])', 'argv', '2024-04-02 08:00:00');
