-- A PowerJob 5.x database for TestImport (e2e/import_test.go): the tables
-- and columns docs/import.md maps, with rows covering every enum value
-- PowerJob documents at least once, a workflow DAG with a decision and a
-- nested workflow, and what cannot be mapped exactly.

CREATE TABLE app_info (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  app_name VARCHAR(255),
  password VARCHAR(255),
  title VARCHAR(255),
  namespace_id BIGINT,
  tags VARCHAR(255),
  extra VARCHAR(255),
  current_server VARCHAR(255),
  gmt_create DATETIME(6),
  gmt_modified DATETIME(6),
  UNIQUE KEY uk_app_name (app_name)
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE user_info (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  username VARCHAR(255),
  password VARCHAR(255),
  email VARCHAR(255),
  phone VARCHAR(255),
  web_hook VARCHAR(255),
  extra VARCHAR(255)
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE job_info (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  app_id BIGINT,
  job_name VARCHAR(255),
  job_description VARCHAR(255),
  job_params LONGTEXT,
  time_expression_type INT,
  time_expression VARCHAR(255),
  execute_type INT,
  processor_type INT,
  processor_info VARCHAR(255),
  concurrency INT,
  max_instance_num INT,
  instance_retry_num INT,
  task_retry_num INT,
  instance_time_limit BIGINT,
  dispatch_strategy INT,
  dispatch_strategy_config VARCHAR(255),
  designated_workers VARCHAR(255),
  max_worker_count INT,
  min_cpu_cores DOUBLE NOT NULL DEFAULT 0,
  min_memory_space DOUBLE NOT NULL DEFAULT 0,
  min_disk_space DOUBLE NOT NULL DEFAULT 0,
  tag VARCHAR(255),
  lifecycle VARCHAR(255),
  alarm_config VARCHAR(255),
  notify_user_ids VARCHAR(255),
  log_config VARCHAR(255),
  advanced_runtime_config VARCHAR(255),
  status INT,
  next_trigger_time BIGINT,
  extra VARCHAR(255),
  gmt_create DATETIME(6),
  gmt_modified DATETIME(6)
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE workflow_info (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  app_id BIGINT,
  wf_name VARCHAR(255),
  wf_description VARCHAR(255),
  time_expression_type INT,
  time_expression VARCHAR(255),
  max_wf_instance_num INT,
  pedag LONGTEXT,
  status INT,
  lifecycle VARCHAR(255),
  notify_user_ids VARCHAR(255),
  next_trigger_time BIGINT,
  extra VARCHAR(255),
  gmt_create DATETIME(6),
  gmt_modified DATETIME(6)
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE workflow_node_info (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  app_id BIGINT NOT NULL,
  workflow_id BIGINT,
  job_id BIGINT,
  node_name VARCHAR(255),
  node_params LONGTEXT,
  type INT,
  enable BIT(1) NOT NULL,
  skip_when_failed BIT(1) NOT NULL,
  extra LONGTEXT,
  gmt_create DATETIME(6) NOT NULL,
  gmt_modified DATETIME(6) NOT NULL
) DEFAULT CHARSET = utf8mb4;

INSERT INTO app_info (id, app_name, password, title, namespace_id, tags) VALUES
  (1, 'order-service', 'secret-1', '订单服务', NULL, NULL),
  (2, 'Report_Center', 'secret-2', 'Reports', 3, 'bi');

INSERT INTO user_info (id, username, email, phone, web_hook) VALUES
  (1, 'ops', 'ops@example.com', '13800000000', 'https://oapi.dingtalk.com/robot/send?access_token=abc'),
  (2, 'dev', 'dev@example.com', NULL, NULL),
  (3, 'intern', 'intern@example.com', NULL, 'http://10.0.0.8:8080/alarm');

-- time_expression_type: 1 API, 2 CRON, 3 FIXED_RATE, 4 FIXED_DELAY, 5 WORKFLOW, 11 DAILY_TIME_INTERVAL
-- execute_type: 1 STANDALONE, 2 BROADCAST, 3 MAP_REDUCE, 4 MAP
-- processor_type: 1 BUILT_IN, 2 SHELL, 3 PYTHON, 4 EXTERNAL
-- dispatch_strategy: 1 HEALTH_FIRST, 2 RANDOM, 11 SPECIFY; status: 1 ENABLE, 2 DISABLE, 99 DELETED
INSERT INTO job_info (id, app_id, job_name, job_description, job_params, time_expression_type, time_expression, execute_type,
    processor_type, processor_info, concurrency, max_instance_num, instance_retry_num, task_retry_num, instance_time_limit,
    dispatch_strategy, dispatch_strategy_config, designated_workers, max_worker_count, min_cpu_cores, min_memory_space,
    min_disk_space, tag, lifecycle, alarm_config, notify_user_ids, log_config, advanced_runtime_config, status, extra) VALUES
  (1, 1, 'sync-orders', 'Pulls new orders every five minutes', '{"batch":500}', 2, '0 0/5 * * * ?', 1,
    1, 'com.acme.order.SyncOrdersProcessor', 5, 1, 2, 1, 600000,
    1, NULL, '', 0, 0, 0, 0, NULL, '{"start":1767225600000,"end":1798761600000}',
    '{"alertThreshold":3,"statisticWindowLen":600,"silenceWindowLen":1800}', '1,2', NULL, NULL, 1, NULL),
  (2, 1, 'refresh-cache', 'Every worker drops its cache', NULL, 3, '30000', 2,
    1, 'com.acme.cache.RefreshProcessor', 5, 1, 0, 0, 0,
    2, NULL, '', 3, 1.5, 2, 10, NULL, NULL, NULL, '3', '{"type":2,"level":2}', NULL, 1, NULL),
  (3, 1, 'settle', 'Month-end settlement, map-reduce', NULL, 4, '60000', 3,
    1, 'com.acme.settle.SettleMapReduce', 20, 1, 0, 3, 0,
    11, 'tagEquals:settle', '10.0.0.5:27777,10.0.0.6:27777', 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL,
    '{"taskTrackerBehavior":2}', 2, NULL),
  (4, 1, 'export-orders', NULL, NULL, 1, NULL, 4,
    1, 'exportProcessor', 5, 0, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL),
  (5, 1, 'cleanup', 'Removes old files on weekdays', NULL, 11,
    '{"interval":10,"intervalUnit":"MINUTES","startTimeOfDay":"08:00:00","endTimeOfDay":"20:00:00","daysOfWeek":[1,2,3,4,5]}', 1,
    2, 'echo cleaning\nfind /tmp -name "*.old" -mtime +7 -delete', 5, 1, 0, 0, 0,
    1, NULL, 'ops-box', 0, 0, 0, 0, 'ops', NULL, NULL, NULL, NULL, NULL, 1, NULL),
  (6, 1, 'daily-report', 'Python report, run by the workflow', NULL, 5, NULL, 1,
    3, 'import sys\nprint("report for", sys.argv[1:])', 5, 1, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL),
  (7, 1, 'external-loader', NULL, NULL, 5, NULL, 1,
    4, '12#com.acme.ext.Loader', 5, 1, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL),
  (8, 1, 'gone', NULL, NULL, 2, '0 0 3 * * ?', 1,
    1, 'com.acme.Gone', 5, 1, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 99, NULL),
  (9, 1, 'ping-partner', 'Tells the partner we are alive', '{"method":"post","url":"https://partner.example.com/alive","body":"{\\"from\\":\\"acme\\"}","timeout":30}', 1, NULL, 1,
    1, 'tech.powerjob.official.processors.impl.HttpProcessor', 5, 1, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 1, 'free-form'),
  (10, 1, 'notify', NULL, 'echo "settlement done"', 5, NULL, 1,
    1, 'tech.powerjob.official.processors.impl.script.ShellProcessor', 5, 1, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL),
  (11, 1, 'audit', NULL, NULL, 1, NULL, 1,
    1, 'com.acme.AuditProcessor', 5, 1, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL),
  (12, 1, 'audit', NULL, NULL, 1, NULL, 1,
    1, 'com.acme.AuditProcessorV2', 5, 1, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 2, NULL),
  (20, 2, 'weekly-digest', 'A processor the Java example worker registers', 'digest', 2, '0 0 9 ? * MON', 1,
    1, 'io.jobwheel.examples.HelloProcessor', 5, 1, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL),
  (21, 2, 'broken-cron', NULL, NULL, 2, 'every day at noon', 1,
    1, 'com.acme.report.Broken', 5, 1, 0, 0, 0,
    1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL);

-- Workflows. 1: the DAG of PowerJob 4+ (pedag keeps node ids; workflow_node_info the rest):
-- report -> decide -(true)-> notify -> load, decide -(false)-> nested workflow 2.
-- 2: an older DAG carrying its nodes inline. 3: a decision in Groovy that has no translation.
-- 4: a node running a deleted job. 5: a FIXED_DELAY schedule, which jobwheel's workflows lack.
INSERT INTO workflow_info (id, app_id, wf_name, wf_description, time_expression_type, time_expression, max_wf_instance_num,
    pedag, status, lifecycle, notify_user_ids) VALUES
  (1, 1, 'daily-settlement', 'Report, decide, notify or reconcile', 2, '0 0 2 * * ?', 1,
    '{"nodes":[{"nodeId":101,"nodeType":1},{"nodeId":102,"nodeType":1},{"nodeId":103,"nodeType":1},{"nodeId":104,"nodeType":1},{"nodeId":105,"nodeType":1}],"edges":[{"from":101,"to":102},{"from":102,"to":103,"property":"true"},{"from":102,"to":104,"property":"false"},{"from":103,"to":105}]}',
    1, NULL, '2'),
  (2, 1, 'reconcile', NULL, 1, NULL, 1,
    '{"nodes":[{"nodeId":201,"nodeType":1,"jobId":1,"nodeName":"sync again","nodeParams":"{\\"batch\\":50}","enable":true,"skipWhenFailed":false}],"edges":[]}',
    2, '{"start":1767225600000}', NULL),
  (3, 1, 'big-orders', NULL, 1, NULL, 0,
    '{"nodes":[{"nodeId":301},{"nodeId":302},{"nodeId":303}],"edges":[{"from":301,"to":302},{"from":302,"to":303,"property":"true"}]}',
    1, NULL, NULL),
  (4, 1, 'uses-gone', NULL, 1, NULL, 1,
    '{"nodes":[{"nodeId":401}],"edges":[]}', 1, NULL, NULL),
  (5, 1, 'every-minute', NULL, 4, '60000', 1,
    '{"nodes":[{"nodeId":501}],"edges":[]}', 1, NULL, NULL),
  (6, 1, 'old-flow', NULL, 2, '0 0 4 * * ?', 1,
    '{"nodes":[{"nodeId":601}],"edges":[]}', 99, NULL, NULL);

-- type: 1 JOB, 2 DECISION, 3 NESTED_WORKFLOW (job_id is the nested workflow's id)
INSERT INTO workflow_node_info (id, app_id, workflow_id, job_id, node_name, node_params, type, enable, skip_when_failed, gmt_create, gmt_modified) VALUES
  (101, 1, 1, 6, 'report', NULL, 1, b'1', b'0', NOW(), NOW()),
  (102, 1, 1, NULL, 'region check', 'context.region == ''cn'' && context.get("mode") != "dry";', 2, b'1', b'0', NOW(), NOW()),
  (103, 1, 1, 10, 'notify', 'echo "notify from the workflow"', 1, b'1', b'0', NOW(), NOW()),
  (104, 1, 1, 2, 'reconcile', NULL, 3, b'1', b'0', NOW(), NOW()),
  (105, 1, 1, 7, 'load', NULL, 1, b'0', b'1', NOW(), NOW()),
  (301, 1, 3, 4, 'export', NULL, 1, b'1', b'0', NOW(), NOW()),
  (302, 1, 3, NULL, 'big?', 'def n = Integer.parseInt(context.count); return n > 100', 2, b'1', b'0', NOW(), NOW()),
  (303, 1, 3, 11, 'audit', NULL, 1, b'1', b'0', NOW(), NOW()),
  (401, 1, 4, 8, 'gone', NULL, 1, b'1', b'0', NOW(), NOW()),
  (501, 1, 5, 1, 'sync', NULL, 1, b'1', b'0', NOW(), NOW()),
  (601, 1, 6, 1, 'sync', NULL, 1, b'1', b'0', NOW(), NOW());
