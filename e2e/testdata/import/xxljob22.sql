-- An xxl-job 2.2 database for TestImport: jobs named by job_desc and
-- scheduled by job_cron (no schedule_type yet), groups titled by title.

CREATE TABLE xxl_job_group (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  app_name VARCHAR(64) NOT NULL,
  title VARCHAR(12) NOT NULL,
  address_type TINYINT NOT NULL DEFAULT 0,
  address_list VARCHAR(512)
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE xxl_job_info (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job_group INT NOT NULL,
  job_cron VARCHAR(128) NOT NULL,
  job_desc VARCHAR(255) NOT NULL,
  add_time DATETIME,
  update_time DATETIME,
  author VARCHAR(64),
  alarm_email VARCHAR(255),
  executor_route_strategy VARCHAR(50),
  executor_handler VARCHAR(255),
  executor_param VARCHAR(512),
  executor_block_strategy VARCHAR(50),
  executor_timeout INT NOT NULL DEFAULT 0,
  executor_fail_retry_count INT NOT NULL DEFAULT 0,
  glue_type VARCHAR(50) NOT NULL,
  glue_source MEDIUMTEXT,
  glue_remark VARCHAR(128),
  glue_updatetime DATETIME,
  child_jobid VARCHAR(255),
  trigger_status TINYINT NOT NULL DEFAULT 0
) DEFAULT CHARSET = utf8mb4;

INSERT INTO xxl_job_group (id, app_name, title, address_type) VALUES (1, 'xxl-job-executor-sample', '示例执行器', 0);

INSERT INTO xxl_job_info (id, job_group, job_cron, job_desc, author, executor_route_strategy, executor_handler,
    executor_block_strategy, glue_type, trigger_status) VALUES
  (1, 1, '0 0 0 * * ? *', '测试任务1', 'XXL', 'FIRST', 'demoJobHandler', 'SERIAL_EXECUTION', 'BEAN', 1);
