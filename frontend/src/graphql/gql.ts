/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  mutation ChangePassword($oldPassword: String!, $newPassword: String!) {\n    changePassword(oldPassword: $oldPassword, newPassword: $newPassword)\n  }\n": typeof types.ChangePasswordDocument,
    "\n  query Apps {\n    apps {\n      id\n      name\n      description\n      createdAt\n      myRole\n    }\n  }\n": typeof types.AppsDocument,
    "\n  mutation CreateApp($name: String!, $description: String) {\n    createApp(name: $name, description: $description) {\n      app {\n        id\n        name\n        description\n        createdAt\n        myRole\n      }\n      secret\n    }\n  }\n": typeof types.CreateAppDocument,
    "\n  query AuditLog($app: String!, $first: Int!, $after: String) {\n    auditLog(app: $app, first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n": typeof types.AuditLogDocument,
    "\n  fragment AuditRow on AuditEntry {\n    id\n    time\n    actor\n    tokenName\n    clientAddress\n    action\n    objectType\n    objectId\n    objectName\n    outcome\n    error\n    changes {\n      field\n      before\n      after\n    }\n  }\n": typeof types.AuditRowFragmentDoc,
    "\n  query Me {\n    me {\n      id\n      username\n      admin\n      ssoSubject\n    }\n  }\n": typeof types.MeDocument,
    "\n  query SignInOptions {\n    signInOptions {\n      password\n      sso {\n        name\n        loginUrl\n      }\n    }\n  }\n": typeof types.SignInOptionsDocument,
    "\n  mutation Login($username: String!, $password: String!) {\n    login(username: $username, password: $password) {\n      expiresAt\n      user {\n        id\n        username\n      }\n    }\n  }\n": typeof types.LoginDocument,
    "\n  mutation Logout {\n    logout\n  }\n": typeof types.LogoutDocument,
    "\n  fragment CalendarFields on Calendar {\n    id\n    name\n    description\n    dates\n    jobs {\n      id\n      name\n    }\n    updatedAt\n  }\n": typeof types.CalendarFieldsFragmentDoc,
    "\n  query AppCalendars($app: String!) {\n    calendars(app: $app) {\n      ...CalendarFields\n    }\n  }\n": typeof types.AppCalendarsDocument,
    "\n  mutation CreateCalendar($input: CalendarInput!) {\n    createCalendar(input: $input) {\n      ...CalendarFields\n    }\n  }\n": typeof types.CreateCalendarDocument,
    "\n  mutation UpdateCalendar($id: ID!, $input: CalendarInput!) {\n    updateCalendar(id: $id, input: $input) {\n      ...CalendarFields\n    }\n  }\n": typeof types.UpdateCalendarDocument,
    "\n  mutation DeleteCalendar($id: ID!) {\n    deleteCalendar(id: $id)\n  }\n": typeof types.DeleteCalendarDocument,
    "\n  query AppStats($app: String!, $hours: Int) {\n    appStats(app: $app, hours: $hours) {\n      jobs\n      enabledJobs\n      waiting\n      running\n      succeeded\n      failed\n      workersAlive\n      outcomes {\n        start\n        succeeded\n        failed\n        stopped\n        canceled\n      }\n    }\n  }\n": typeof types.AppStatsDocument,
    "\n  query OnCall($app: String!, $hours: Int) {\n    appStats(app: $app, hours: $hours) {\n      capacity {\n        workers\n        slots\n        freeSlots\n      }\n      lag {\n        samples\n        triggerLateness {\n          ...LatencySummaryFields\n        }\n        fireToStart {\n          ...LatencySummaryFields\n        }\n        buckets {\n          start\n          triggerLateness {\n            ...LatencySummaryFields\n          }\n          fireToStart {\n            ...LatencySummaryFields\n          }\n        }\n      }\n      latestFailures(first: 10) {\n        id\n        reason\n        result\n        finishedTime\n        job {\n          id\n          name\n        }\n      }\n      nextFires(first: 10) {\n        time\n        job {\n          id\n          name\n        }\n      }\n    }\n  }\n": typeof types.OnCallDocument,
    "\n  fragment LatencySummaryFields on LatencySummary {\n    count\n    p50\n    p99\n    max\n  }\n": typeof types.LatencySummaryFieldsFragmentDoc,
    "\n  fragment InstanceRow on Instance {\n    id\n    status\n    triggerType\n    expectedTriggerTime\n    actualTriggerTime\n    startedTime\n    finishedTime\n    attempt\n    job {\n      id\n      name\n    }\n    worker {\n      id\n      host\n    }\n  }\n": typeof types.InstanceRowFragmentDoc,
    "\n  query Instances(\n    $app: String!\n    $jobId: ID\n    $status: [InstanceStatus!]\n    $from: Time\n    $to: Time\n    $first: Int\n    $after: String\n  ) {\n    instances(app: $app, jobId: $jobId, status: $status, from: $from, to: $to, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...InstanceRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n": typeof types.InstancesDocument,
    "\n  query JobChoices($app: String!, $first: Int) {\n    jobs(app: $app, first: $first) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n  }\n": typeof types.JobChoicesDocument,
    "\n  fragment InstanceFields on Instance {\n    ...InstanceRow\n    traceId\n    params\n    result\n    reason\n    nextAttemptAt\n    job {\n      id\n      executionMode\n    }\n    worker {\n      id\n      host\n      alive\n      health\n      lastHeartbeat\n    }\n    attempts {\n      attempt\n      status\n      worker\n      result\n      reason\n      startedTime\n      finishedTime\n    }\n    tasks {\n      total\n      waiting\n      running\n      succeeded\n      failed\n      stopped\n    }\n    unqualifiedAt\n    unqualifiedWorkers {\n      worker\n      host\n      filter\n      reason\n    }\n  }\n": typeof types.InstanceFieldsFragmentDoc,
    "\n  query Instance($id: ID!) {\n    instance(id: $id) {\n      ...InstanceFields\n    }\n    traceUrlTemplate\n  }\n": typeof types.InstanceDocument,
    "\n  query InstanceLogs($id: ID!, $afterSeq: Int, $first: Int) {\n    instance(id: $id) {\n      id\n      logs(afterSeq: $afterSeq, first: $first) {\n        lines {\n          seq\n          time\n          level\n          worker\n          text\n          attempt\n        }\n        hasMore\n      }\n    }\n  }\n": typeof types.InstanceLogsDocument,
    "\n  mutation StopInstance($id: ID!) {\n    stopInstance(id: $id) {\n      ...InstanceFields\n    }\n  }\n": typeof types.StopInstanceDocument,
    "\n  mutation RetryInstance($id: ID!) {\n    retryInstance(id: $id) {\n      ...InstanceFields\n    }\n  }\n": typeof types.RetryInstanceDocument,
    "\n  subscription InstanceLogLines($instanceId: ID!, $afterSeq: Int) {\n    instanceLogs(instanceId: $instanceId, afterSeq: $afterSeq) {\n      seq\n      time\n      level\n      worker\n      text\n      attempt\n    }\n  }\n": typeof types.InstanceLogLinesDocument,
    "\n  subscription InstanceChanges($app: String!, $jobId: ID) {\n    instanceUpdated(app: $app, jobId: $jobId) {\n      id\n      status\n    }\n  }\n": typeof types.InstanceChangesDocument,
    "\n  subscription InstanceLiveChanges($app: String!, $jobId: ID) {\n    instanceUpdated(app: $app, jobId: $jobId) {\n      id\n      status\n      attempt\n      reason\n      startedTime\n      finishedTime\n      worker {\n        id\n        host\n        alive\n        health\n        lastHeartbeat\n      }\n    }\n  }\n": typeof types.InstanceLiveChangesDocument,
    "\n  query InstanceTaskSummary($id: ID!) {\n    instance(id: $id) {\n      id\n      status\n      tasks {\n        total\n        waiting\n        running\n        succeeded\n        failed\n        stopped\n      }\n    }\n  }\n": typeof types.InstanceTaskSummaryDocument,
    "\n  fragment TaskRow on Task {\n    id\n    name\n    kind\n    status\n    workerId\n    attempt\n    createdTime\n    finishedTime\n    nextAttemptAt\n  }\n": typeof types.TaskRowFragmentDoc,
    "\n  query InstanceTasks($id: ID!, $status: [TaskStatus!], $first: Int, $after: String) {\n    instance(id: $id) {\n      id\n      taskList(status: $status, first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            ...TaskRow\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": typeof types.InstanceTasksDocument,
    "\n  query InstanceTask($id: ID!, $taskId: ID!) {\n    instance(id: $id) {\n      id\n      task(id: $taskId) {\n        ...TaskRow\n        parentId\n        payload\n        payloadSize\n        result\n        resultSize\n        instanceAttempt\n        dispatchedTime\n        updatedTime\n        worker {\n          id\n          host\n          alive\n        }\n      }\n    }\n  }\n": typeof types.InstanceTaskDocument,
    "\n  fragment JobRow on Job {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    processorType\n    executionMode\n    nextTriggerTime\n    lastRun {\n      id\n      status\n      actualTriggerTime\n    }\n    workerFilter {\n      tags\n    }\n  }\n": typeof types.JobRowFragmentDoc,
    "\n  query Jobs($app: String!, $first: Int, $after: String, $search: String) {\n    jobs(app: $app, first: $first, after: $after, search: $search) {\n      edges {\n        cursor\n        node {\n          ...JobRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.JobsDocument,
    "\n  fragment JobFields on Job {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    scheduleWindow {\n      start\n      end\n      days\n    }\n    calendar {\n      id\n      name\n    }\n    managedBy\n    managedSource\n    version\n    lifecycle {\n      start\n      end\n    }\n    executionMode\n    processorType\n    processor\n    params\n    maxInstances\n    taskConcurrency\n    timeoutMs\n    instanceRetries\n    taskRetries\n    overlapPolicy\n    maxQueued\n    priority\n    retryDelayMs\n    retryBackoff\n    retryDelayMaxMs\n    pool {\n      id\n      name\n    }\n    poolSlots\n    workerFilter {\n      designated\n      tags\n      minCpuCores\n      minMemoryMB\n      minDiskMB\n      maxWorkers\n    }\n    dispatchStrategy\n    misfirePolicy\n    alarm {\n      rules {\n        type\n        threshold\n        silenceSec\n      }\n      channels {\n        type\n        target\n      }\n    }\n    nextTriggerTime\n    updatedAt\n  }\n": typeof types.JobFieldsFragmentDoc,
    "\n  query Job($id: ID!) {\n    job(id: $id) {\n      ...JobFields\n      app {\n        id\n        name\n      }\n    }\n  }\n": typeof types.JobDocument,
    "\n  mutation CreateJob($input: JobInput!) {\n    createJob(input: $input) {\n      ...JobFields\n    }\n  }\n": typeof types.CreateJobDocument,
    "\n  mutation UpdateJob($id: ID!, $input: JobInput!) {\n    updateJob(id: $id, input: $input) {\n      ...JobFields\n    }\n  }\n": typeof types.UpdateJobDocument,
    "\n  mutation SetJobEnabled($id: ID!, $enabled: Boolean!) {\n    setJobEnabled(id: $id, enabled: $enabled) {\n      ...JobRow\n    }\n  }\n": typeof types.SetJobEnabledDocument,
    "\n  mutation DeleteJob($id: ID!) {\n    deleteJob(id: $id)\n  }\n": typeof types.DeleteJobDocument,
    "\n  mutation RunJob($id: ID!, $params: String, $delayMs: Int, $idempotencyKey: String) {\n    runJob(id: $id, params: $params, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {\n      id\n      status\n    }\n  }\n": typeof types.RunJobDocument,
    "\n  query PreviewSchedule(\n    $type: ScheduleType!\n    $expression: String!\n    $timeZone: String\n    $count: Int\n    $window: ScheduleWindowInput\n    $app: String\n    $calendar: String\n  ) {\n    previewSchedule(\n      type: $type\n      expression: $expression\n      timeZone: $timeZone\n      count: $count\n      window: $window\n      app: $app\n      calendar: $calendar\n    )\n  }\n": typeof types.PreviewScheduleDocument,
    "\n  query JobOverview($id: ID!, $app: String!, $hours: Int, $runs: Int) {\n    job(id: $id) {\n      ...JobFields\n      app {\n        id\n        name\n      }\n      upcoming(count: 5)\n      stats(hours: $hours) {\n        succeeded\n        failed\n        stopped\n        canceled\n        outcomes {\n          start\n          succeeded\n          failed\n          stopped\n          canceled\n        }\n      }\n    }\n    instances(app: $app, jobId: $id, first: $runs) {\n      edges {\n        node {\n          ...InstanceRow\n        }\n      }\n      totalCount\n    }\n  }\n": typeof types.JobOverviewDocument,
    "\n  query Calendars($app: String!) {\n    calendars(app: $app) {\n      id\n      name\n      description\n      dates\n    }\n  }\n": typeof types.CalendarsDocument,
    "\n  query JobVersions($id: ID!) {\n    job(id: $id) {\n      id\n      version\n      versions(first: 100) {\n        version\n        change\n        author\n        createdAt\n        processor\n        definition\n      }\n    }\n  }\n": typeof types.JobVersionsDocument,
    "\n  mutation RestoreJobVersion($id: ID!, $version: Int!) {\n    restoreJobVersion(id: $id, version: $version) {\n      ...JobFields\n    }\n  }\n": typeof types.RestoreJobVersionDocument,
    "\n  fragment AlarmRecordFields on AlarmRecord {\n    id\n    time\n    event\n    rule\n    outcome\n    channel\n    target\n    statusCode\n    answer\n    attempts\n    summary\n    instanceId\n    workflowInstanceId\n  }\n": typeof types.AlarmRecordFieldsFragmentDoc,
    "\n  query JobAlarmHistory($id: ID!, $first: Int, $after: String) {\n    job(id: $id) {\n      id\n      alarmHistory(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          cursor\n          node {\n            ...AlarmRecordFields\n          }\n        }\n      }\n    }\n  }\n": typeof types.JobAlarmHistoryDocument,
    "\n  mutation SendTestAlarm($jobId: ID, $workflowId: ID) {\n    sendTestAlarm(jobId: $jobId, workflowId: $workflowId) {\n      channel\n      target\n      ok\n      statusCode\n      answer\n    }\n  }\n": typeof types.SendTestAlarmDocument,
    "\n  fragment PoolInstanceFields on Instance {\n    id\n    status\n    reason\n    result\n    triggerType\n    actualTriggerTime\n    startedTime\n    poolSlots\n    poolPosition\n    job {\n      id\n      name\n    }\n  }\n": typeof types.PoolInstanceFieldsFragmentDoc,
    "\n  fragment PoolFields on Pool {\n    id\n    name\n    description\n    slots\n    usedSlots\n    holders {\n      ...PoolInstanceFields\n    }\n    queue {\n      ...PoolInstanceFields\n    }\n    jobs {\n      id\n      name\n      poolSlots\n    }\n    updatedAt\n  }\n": typeof types.PoolFieldsFragmentDoc,
    "\n  query AppPools($app: String!) {\n    pools(app: $app) {\n      ...PoolFields\n    }\n  }\n": typeof types.AppPoolsDocument,
    "\n  query PoolNames($app: String!) {\n    pools(app: $app) {\n      id\n      name\n      slots\n    }\n  }\n": typeof types.PoolNamesDocument,
    "\n  mutation CreatePool($input: PoolInput!) {\n    createPool(input: $input) {\n      ...PoolFields\n    }\n  }\n": typeof types.CreatePoolDocument,
    "\n  mutation UpdatePool($id: ID!, $input: PoolInput!) {\n    updatePool(id: $id, input: $input) {\n      ...PoolFields\n    }\n  }\n": typeof types.UpdatePoolDocument,
    "\n  mutation DeletePool($id: ID!) {\n    deletePool(id: $id)\n  }\n": typeof types.DeletePoolDocument,
    "\n  query RunReport($app: String, $from: Time!, $to: Time!, $timeZone: String) {\n    runReport(app: $app, from: $from, to: $to, timeZone: $timeZone) {\n      from\n      to\n      timeZone\n      days {\n        date\n        start\n        runs\n        succeeded\n        failed\n        stopped\n        canceled\n      }\n      rows {\n        date\n        job {\n          id\n          name\n          app {\n            id\n            name\n          }\n        }\n        runs\n        succeeded\n        failed\n        stopped\n        canceled\n        durationP50Ms\n        durationP95Ms\n        durationMaxMs\n      }\n    }\n  }\n": typeof types.RunReportDocument,
    "\n  query AppsOverview($timeZone: String) {\n    appsOverview(timeZone: $timeZone) {\n      app {\n        id\n        name\n        description\n      }\n      jobs\n      runsToday\n      failuresToday\n      runningNow\n      workersOnline\n    }\n  }\n": typeof types.AppsOverviewDocument,
    "\n  query Servers {\n    servers {\n      id\n      advertiseUrl\n      alive\n      startedAt\n      heartbeatAt\n      version\n    }\n  }\n": typeof types.ServersDocument,
    "\n  query AppSettings {\n    apps {\n      id\n      name\n      description\n      createdAt\n      myRole\n      retentionDays\n      members {\n        userId\n        username\n        role\n        admin\n      }\n    }\n  }\n": typeof types.AppSettingsDocument,
    "\n  mutation SetAppRole($app: String!, $username: String!, $role: AppRole) {\n    setAppRole(app: $app, username: $username, role: $role) {\n      id\n      myRole\n      members {\n        userId\n        username\n        role\n        admin\n      }\n    }\n  }\n": typeof types.SetAppRoleDocument,
    "\n  mutation RotateAppSecret($app: String!) {\n    rotateAppSecret(app: $app) {\n      app {\n        id\n        name\n      }\n      secret\n    }\n  }\n": typeof types.RotateAppSecretDocument,
    "\n  mutation DeleteApp($app: String!) {\n    deleteApp(app: $app)\n  }\n": typeof types.DeleteAppDocument,
    "\n  mutation SetAppRetention($app: String!, $days: Int) {\n    setAppRetention(app: $app, days: $days) {\n      id\n      retentionDays\n    }\n  }\n": typeof types.SetAppRetentionDocument,
    "\n  fragment ApiTokenFields on ApiToken {\n    id\n    name\n    app {\n      id\n      name\n    }\n    role\n    user {\n      id\n      username\n    }\n    createdAt\n    lastUsedAt\n    revokedAt\n  }\n": typeof types.ApiTokenFieldsFragmentDoc,
    "\n  query ApiTokens {\n    apiTokens {\n      ...ApiTokenFields\n    }\n  }\n": typeof types.ApiTokensDocument,
    "\n  mutation CreateApiToken($name: String!, $app: String, $role: AppRole) {\n    createApiToken(name: $name, app: $app, role: $role) {\n      token {\n        ...ApiTokenFields\n      }\n      secret\n    }\n  }\n": typeof types.CreateApiTokenDocument,
    "\n  mutation RevokeApiToken($id: ID!) {\n    revokeApiToken(id: $id)\n  }\n": typeof types.RevokeApiTokenDocument,
    "\n  query Users {\n    users {\n      id\n      username\n      admin\n      createdAt\n    }\n  }\n": typeof types.UsersDocument,
    "\n  mutation CreateUser($username: String!, $password: String!, $admin: Boolean) {\n    createUser(username: $username, password: $password, admin: $admin) {\n      id\n      username\n      admin\n      createdAt\n    }\n  }\n": typeof types.CreateUserDocument,
    "\n  query Workers($app: String!) {\n    workers(app: $app) {\n      ...WorkerRow\n    }\n  }\n": typeof types.WorkersDocument,
    "\n  subscription WorkersUpdated($app: String!) {\n    workersUpdated(app: $app) {\n      ...WorkerRow\n    }\n  }\n": typeof types.WorkersUpdatedDocument,
    "\n  fragment WorkerRow on Worker {\n    id\n    host\n    tags\n    processors\n    slots\n    metrics {\n      cpuCores\n      load1\n      freeMemoryMB\n      freeDiskMB\n    }\n    connectedAt\n    lastHeartbeat\n    alive\n    health\n  }\n": typeof types.WorkerRowFragmentDoc,
    "\n  fragment WorkflowRow on Workflow {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    version\n    nextTriggerTime\n    lastRun {\n      id\n      status\n      triggerTime\n    }\n  }\n": typeof types.WorkflowRowFragmentDoc,
    "\n  query Workflows($app: String!, $first: Int, $after: String, $search: String) {\n    workflows(app: $app, first: $first, after: $after, search: $search) {\n      edges {\n        cursor\n        node {\n          ...WorkflowRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n": typeof types.WorkflowsDocument,
    "\n  fragment WorkflowFields on Workflow {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    maxInstances\n    overlapPolicy\n    misfirePolicy\n    failFast\n    version\n    nextTriggerTime\n    updatedAt\n    managedBy\n    managedSource\n    nodes {\n      key\n      type\n      name\n      jobId\n      workflowId\n      expression\n      params\n      enabled\n      skipWhenFailed\n      triggerRule\n      parallelism\n      timeoutMs\n      retries\n      pool\n      poolSlots\n      position {\n        x\n        y\n      }\n    }\n    edges {\n      from\n      to\n      label\n    }\n    alarm {\n      rules {\n        type\n        threshold\n        silenceSec\n      }\n      channels {\n        type\n        target\n      }\n    }\n  }\n": typeof types.WorkflowFieldsFragmentDoc,
    "\n  query Workflow($id: ID!) {\n    workflow(id: $id) {\n      ...WorkflowFields\n    }\n  }\n": typeof types.WorkflowDocument,
    "\n  query WorkflowVersions($id: ID!) {\n    workflow(id: $id) {\n      id\n      version\n      versions {\n        version\n        createdBy\n        createdAt\n        definition\n      }\n    }\n  }\n": typeof types.WorkflowVersionsDocument,
    "\n  query WorkflowAlarmHistory($id: ID!, $first: Int, $after: String) {\n    workflow(id: $id) {\n      id\n      alarmHistory(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          cursor\n          node {\n            ...AlarmRecordFields\n          }\n        }\n      }\n    }\n  }\n": typeof types.WorkflowAlarmHistoryDocument,
    "\n  query WorkflowChoices($app: String!) {\n    jobs(app: $app, first: 500) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n    workflows(app: $app, first: 500) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n    pools(app: $app) {\n      id\n      name\n      slots\n    }\n  }\n": typeof types.WorkflowChoicesDocument,
    "\n  mutation CreateWorkflow($input: WorkflowInput!) {\n    createWorkflow(input: $input) {\n      ...WorkflowFields\n    }\n  }\n": typeof types.CreateWorkflowDocument,
    "\n  mutation UpdateWorkflow($id: ID!, $input: WorkflowInput!, $expectedVersion: Int) {\n    updateWorkflow(id: $id, input: $input, expectedVersion: $expectedVersion) {\n      ...WorkflowFields\n    }\n  }\n": typeof types.UpdateWorkflowDocument,
    "\n  mutation SetWorkflowEnabled($id: ID!, $enabled: Boolean!) {\n    setWorkflowEnabled(id: $id, enabled: $enabled) {\n      ...WorkflowRow\n    }\n  }\n": typeof types.SetWorkflowEnabledDocument,
    "\n  mutation DeleteWorkflow($id: ID!) {\n    deleteWorkflow(id: $id)\n  }\n": typeof types.DeleteWorkflowDocument,
    "\n  mutation RestoreWorkflowVersion($id: ID!, $version: Int!) {\n    restoreWorkflowVersion(id: $id, version: $version) {\n      ...WorkflowFields\n    }\n  }\n": typeof types.RestoreWorkflowVersionDocument,
    "\n  query ExportWorkflow($id: ID!) {\n    exportWorkflow(id: $id)\n  }\n": typeof types.ExportWorkflowDocument,
    "\n  mutation ImportWorkflow($app: String!, $definition: JSON!, $replace: Boolean) {\n    importWorkflow(app: $app, definition: $definition, replace: $replace) {\n      id\n      name\n    }\n  }\n": typeof types.ImportWorkflowDocument,
    "\n  mutation RunWorkflow($id: ID!, $context: JSON, $delayMs: Int, $idempotencyKey: String) {\n    runWorkflow(id: $id, context: $context, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {\n      id\n      status\n    }\n  }\n": typeof types.RunWorkflowDocument,
    "\n  fragment WorkflowRunRow on WorkflowInstance {\n    id\n    status\n    reason\n    version\n    triggerType\n    triggerTime\n    startedTime\n    finishedTime\n    parentNodeKey\n    workflow {\n      id\n      name\n    }\n  }\n": typeof types.WorkflowRunRowFragmentDoc,
    "\n  query WorkflowRuns($app: String!, $workflowId: ID, $status: [WorkflowInstanceStatus!], $first: Int, $after: String) {\n    workflowInstances(app: $app, workflowId: $workflowId, status: $status, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...WorkflowRunRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n": typeof types.WorkflowRunsDocument,
    "\n  fragment WorkflowRunFields on WorkflowInstance {\n    ...WorkflowRunRow\n    result\n    context\n    initialContext\n    createdAt\n    parent {\n      id\n      workflow {\n        id\n        name\n      }\n    }\n    edges {\n      from\n      to\n      label\n    }\n    nodes {\n      key\n      type\n      name\n      status\n      reason\n      message\n      result\n      output\n      failureIgnored\n      generation\n      items\n      decidedBy\n      comment\n      deadline\n      startedTime\n      finishedTime\n      child {\n        id\n        status\n      }\n      instances {\n        id\n        status\n        attempt\n        startedTime\n        finishedTime\n        result\n        reason\n        params\n        workflowInput\n        worker {\n          id\n          host\n        }\n      }\n    }\n  }\n": typeof types.WorkflowRunFieldsFragmentDoc,
    "\n  query WorkflowRun($id: ID!) {\n    workflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": typeof types.WorkflowRunDocument,
    "\n  subscription WorkflowRunUpdated($id: ID!) {\n    workflowInstanceUpdated(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": typeof types.WorkflowRunUpdatedDocument,
    "\n  mutation StopWorkflowRun($id: ID!) {\n    stopWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": typeof types.StopWorkflowRunDocument,
    "\n  mutation RetryWorkflowRun($id: ID!) {\n    retryWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": typeof types.RetryWorkflowRunDocument,
    "\n  mutation PauseWorkflowRun($id: ID!) {\n    pauseWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": typeof types.PauseWorkflowRunDocument,
    "\n  mutation ResumeWorkflowRun($id: ID!) {\n    resumeWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": typeof types.ResumeWorkflowRunDocument,
    "\n  mutation MarkWorkflowNodeSucceeded($id: ID!, $node: String!) {\n    markWorkflowNodeSucceeded(workflowInstanceId: $id, node: $node) {\n      ...WorkflowRunFields\n    }\n  }\n": typeof types.MarkWorkflowNodeSucceededDocument,
    "\n  mutation RerunWorkflowNode($id: ID!, $node: String!, $downstream: Boolean!) {\n    rerunWorkflowNode(workflowInstanceId: $id, node: $node, downstream: $downstream) {\n      ...WorkflowRunFields\n    }\n  }\n": typeof types.RerunWorkflowNodeDocument,
    "\n  mutation ApproveWorkflowNode($id: ID!, $node: String!, $approve: Boolean!, $comment: String) {\n    approveWorkflowNode(workflowInstanceId: $id, node: $node, approve: $approve, comment: $comment) {\n      ...WorkflowRunFields\n    }\n  }\n": typeof types.ApproveWorkflowNodeDocument,
    "\n  fragment WorkflowGridRun on WorkflowInstance {\n    id\n    status\n    version\n    triggerTime\n    startedTime\n    finishedTime\n    parentNodeKey\n    nodes {\n      key\n      name\n      type\n      status\n      reason\n      startedTime\n      finishedTime\n    }\n  }\n": typeof types.WorkflowGridRunFragmentDoc,
    "\n  query WorkflowGrid($app: String!, $workflowId: ID!, $first: Int) {\n    workflowInstances(app: $app, workflowId: $workflowId, first: $first) {\n      edges {\n        node {\n          ...WorkflowGridRun\n        }\n      }\n      totalCount\n    }\n  }\n": typeof types.WorkflowGridDocument,
    "\n  subscription WorkflowGridRunChanged($id: ID!) {\n    workflowInstanceUpdated(id: $id) {\n      id\n      status\n    }\n  }\n": typeof types.WorkflowGridRunChangedDocument,
    "\n  subscription WorkflowGridInstanceChanged($app: String!) {\n    instanceUpdated(app: $app) {\n      id\n      triggerType\n    }\n  }\n": typeof types.WorkflowGridInstanceChangedDocument,
};
const documents: Documents = {
    "\n  mutation ChangePassword($oldPassword: String!, $newPassword: String!) {\n    changePassword(oldPassword: $oldPassword, newPassword: $newPassword)\n  }\n": types.ChangePasswordDocument,
    "\n  query Apps {\n    apps {\n      id\n      name\n      description\n      createdAt\n      myRole\n    }\n  }\n": types.AppsDocument,
    "\n  mutation CreateApp($name: String!, $description: String) {\n    createApp(name: $name, description: $description) {\n      app {\n        id\n        name\n        description\n        createdAt\n        myRole\n      }\n      secret\n    }\n  }\n": types.CreateAppDocument,
    "\n  query AuditLog($app: String!, $first: Int!, $after: String) {\n    auditLog(app: $app, first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n": types.AuditLogDocument,
    "\n  fragment AuditRow on AuditEntry {\n    id\n    time\n    actor\n    tokenName\n    clientAddress\n    action\n    objectType\n    objectId\n    objectName\n    outcome\n    error\n    changes {\n      field\n      before\n      after\n    }\n  }\n": types.AuditRowFragmentDoc,
    "\n  query Me {\n    me {\n      id\n      username\n      admin\n      ssoSubject\n    }\n  }\n": types.MeDocument,
    "\n  query SignInOptions {\n    signInOptions {\n      password\n      sso {\n        name\n        loginUrl\n      }\n    }\n  }\n": types.SignInOptionsDocument,
    "\n  mutation Login($username: String!, $password: String!) {\n    login(username: $username, password: $password) {\n      expiresAt\n      user {\n        id\n        username\n      }\n    }\n  }\n": types.LoginDocument,
    "\n  mutation Logout {\n    logout\n  }\n": types.LogoutDocument,
    "\n  fragment CalendarFields on Calendar {\n    id\n    name\n    description\n    dates\n    jobs {\n      id\n      name\n    }\n    updatedAt\n  }\n": types.CalendarFieldsFragmentDoc,
    "\n  query AppCalendars($app: String!) {\n    calendars(app: $app) {\n      ...CalendarFields\n    }\n  }\n": types.AppCalendarsDocument,
    "\n  mutation CreateCalendar($input: CalendarInput!) {\n    createCalendar(input: $input) {\n      ...CalendarFields\n    }\n  }\n": types.CreateCalendarDocument,
    "\n  mutation UpdateCalendar($id: ID!, $input: CalendarInput!) {\n    updateCalendar(id: $id, input: $input) {\n      ...CalendarFields\n    }\n  }\n": types.UpdateCalendarDocument,
    "\n  mutation DeleteCalendar($id: ID!) {\n    deleteCalendar(id: $id)\n  }\n": types.DeleteCalendarDocument,
    "\n  query AppStats($app: String!, $hours: Int) {\n    appStats(app: $app, hours: $hours) {\n      jobs\n      enabledJobs\n      waiting\n      running\n      succeeded\n      failed\n      workersAlive\n      outcomes {\n        start\n        succeeded\n        failed\n        stopped\n        canceled\n      }\n    }\n  }\n": types.AppStatsDocument,
    "\n  query OnCall($app: String!, $hours: Int) {\n    appStats(app: $app, hours: $hours) {\n      capacity {\n        workers\n        slots\n        freeSlots\n      }\n      lag {\n        samples\n        triggerLateness {\n          ...LatencySummaryFields\n        }\n        fireToStart {\n          ...LatencySummaryFields\n        }\n        buckets {\n          start\n          triggerLateness {\n            ...LatencySummaryFields\n          }\n          fireToStart {\n            ...LatencySummaryFields\n          }\n        }\n      }\n      latestFailures(first: 10) {\n        id\n        reason\n        result\n        finishedTime\n        job {\n          id\n          name\n        }\n      }\n      nextFires(first: 10) {\n        time\n        job {\n          id\n          name\n        }\n      }\n    }\n  }\n": types.OnCallDocument,
    "\n  fragment LatencySummaryFields on LatencySummary {\n    count\n    p50\n    p99\n    max\n  }\n": types.LatencySummaryFieldsFragmentDoc,
    "\n  fragment InstanceRow on Instance {\n    id\n    status\n    triggerType\n    expectedTriggerTime\n    actualTriggerTime\n    startedTime\n    finishedTime\n    attempt\n    job {\n      id\n      name\n    }\n    worker {\n      id\n      host\n    }\n  }\n": types.InstanceRowFragmentDoc,
    "\n  query Instances(\n    $app: String!\n    $jobId: ID\n    $status: [InstanceStatus!]\n    $from: Time\n    $to: Time\n    $first: Int\n    $after: String\n  ) {\n    instances(app: $app, jobId: $jobId, status: $status, from: $from, to: $to, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...InstanceRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n": types.InstancesDocument,
    "\n  query JobChoices($app: String!, $first: Int) {\n    jobs(app: $app, first: $first) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n  }\n": types.JobChoicesDocument,
    "\n  fragment InstanceFields on Instance {\n    ...InstanceRow\n    traceId\n    params\n    result\n    reason\n    nextAttemptAt\n    job {\n      id\n      executionMode\n    }\n    worker {\n      id\n      host\n      alive\n      health\n      lastHeartbeat\n    }\n    attempts {\n      attempt\n      status\n      worker\n      result\n      reason\n      startedTime\n      finishedTime\n    }\n    tasks {\n      total\n      waiting\n      running\n      succeeded\n      failed\n      stopped\n    }\n    unqualifiedAt\n    unqualifiedWorkers {\n      worker\n      host\n      filter\n      reason\n    }\n  }\n": types.InstanceFieldsFragmentDoc,
    "\n  query Instance($id: ID!) {\n    instance(id: $id) {\n      ...InstanceFields\n    }\n    traceUrlTemplate\n  }\n": types.InstanceDocument,
    "\n  query InstanceLogs($id: ID!, $afterSeq: Int, $first: Int) {\n    instance(id: $id) {\n      id\n      logs(afterSeq: $afterSeq, first: $first) {\n        lines {\n          seq\n          time\n          level\n          worker\n          text\n          attempt\n        }\n        hasMore\n      }\n    }\n  }\n": types.InstanceLogsDocument,
    "\n  mutation StopInstance($id: ID!) {\n    stopInstance(id: $id) {\n      ...InstanceFields\n    }\n  }\n": types.StopInstanceDocument,
    "\n  mutation RetryInstance($id: ID!) {\n    retryInstance(id: $id) {\n      ...InstanceFields\n    }\n  }\n": types.RetryInstanceDocument,
    "\n  subscription InstanceLogLines($instanceId: ID!, $afterSeq: Int) {\n    instanceLogs(instanceId: $instanceId, afterSeq: $afterSeq) {\n      seq\n      time\n      level\n      worker\n      text\n      attempt\n    }\n  }\n": types.InstanceLogLinesDocument,
    "\n  subscription InstanceChanges($app: String!, $jobId: ID) {\n    instanceUpdated(app: $app, jobId: $jobId) {\n      id\n      status\n    }\n  }\n": types.InstanceChangesDocument,
    "\n  subscription InstanceLiveChanges($app: String!, $jobId: ID) {\n    instanceUpdated(app: $app, jobId: $jobId) {\n      id\n      status\n      attempt\n      reason\n      startedTime\n      finishedTime\n      worker {\n        id\n        host\n        alive\n        health\n        lastHeartbeat\n      }\n    }\n  }\n": types.InstanceLiveChangesDocument,
    "\n  query InstanceTaskSummary($id: ID!) {\n    instance(id: $id) {\n      id\n      status\n      tasks {\n        total\n        waiting\n        running\n        succeeded\n        failed\n        stopped\n      }\n    }\n  }\n": types.InstanceTaskSummaryDocument,
    "\n  fragment TaskRow on Task {\n    id\n    name\n    kind\n    status\n    workerId\n    attempt\n    createdTime\n    finishedTime\n    nextAttemptAt\n  }\n": types.TaskRowFragmentDoc,
    "\n  query InstanceTasks($id: ID!, $status: [TaskStatus!], $first: Int, $after: String) {\n    instance(id: $id) {\n      id\n      taskList(status: $status, first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            ...TaskRow\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": types.InstanceTasksDocument,
    "\n  query InstanceTask($id: ID!, $taskId: ID!) {\n    instance(id: $id) {\n      id\n      task(id: $taskId) {\n        ...TaskRow\n        parentId\n        payload\n        payloadSize\n        result\n        resultSize\n        instanceAttempt\n        dispatchedTime\n        updatedTime\n        worker {\n          id\n          host\n          alive\n        }\n      }\n    }\n  }\n": types.InstanceTaskDocument,
    "\n  fragment JobRow on Job {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    processorType\n    executionMode\n    nextTriggerTime\n    lastRun {\n      id\n      status\n      actualTriggerTime\n    }\n    workerFilter {\n      tags\n    }\n  }\n": types.JobRowFragmentDoc,
    "\n  query Jobs($app: String!, $first: Int, $after: String, $search: String) {\n    jobs(app: $app, first: $first, after: $after, search: $search) {\n      edges {\n        cursor\n        node {\n          ...JobRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.JobsDocument,
    "\n  fragment JobFields on Job {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    scheduleWindow {\n      start\n      end\n      days\n    }\n    calendar {\n      id\n      name\n    }\n    managedBy\n    managedSource\n    version\n    lifecycle {\n      start\n      end\n    }\n    executionMode\n    processorType\n    processor\n    params\n    maxInstances\n    taskConcurrency\n    timeoutMs\n    instanceRetries\n    taskRetries\n    overlapPolicy\n    maxQueued\n    priority\n    retryDelayMs\n    retryBackoff\n    retryDelayMaxMs\n    pool {\n      id\n      name\n    }\n    poolSlots\n    workerFilter {\n      designated\n      tags\n      minCpuCores\n      minMemoryMB\n      minDiskMB\n      maxWorkers\n    }\n    dispatchStrategy\n    misfirePolicy\n    alarm {\n      rules {\n        type\n        threshold\n        silenceSec\n      }\n      channels {\n        type\n        target\n      }\n    }\n    nextTriggerTime\n    updatedAt\n  }\n": types.JobFieldsFragmentDoc,
    "\n  query Job($id: ID!) {\n    job(id: $id) {\n      ...JobFields\n      app {\n        id\n        name\n      }\n    }\n  }\n": types.JobDocument,
    "\n  mutation CreateJob($input: JobInput!) {\n    createJob(input: $input) {\n      ...JobFields\n    }\n  }\n": types.CreateJobDocument,
    "\n  mutation UpdateJob($id: ID!, $input: JobInput!) {\n    updateJob(id: $id, input: $input) {\n      ...JobFields\n    }\n  }\n": types.UpdateJobDocument,
    "\n  mutation SetJobEnabled($id: ID!, $enabled: Boolean!) {\n    setJobEnabled(id: $id, enabled: $enabled) {\n      ...JobRow\n    }\n  }\n": types.SetJobEnabledDocument,
    "\n  mutation DeleteJob($id: ID!) {\n    deleteJob(id: $id)\n  }\n": types.DeleteJobDocument,
    "\n  mutation RunJob($id: ID!, $params: String, $delayMs: Int, $idempotencyKey: String) {\n    runJob(id: $id, params: $params, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {\n      id\n      status\n    }\n  }\n": types.RunJobDocument,
    "\n  query PreviewSchedule(\n    $type: ScheduleType!\n    $expression: String!\n    $timeZone: String\n    $count: Int\n    $window: ScheduleWindowInput\n    $app: String\n    $calendar: String\n  ) {\n    previewSchedule(\n      type: $type\n      expression: $expression\n      timeZone: $timeZone\n      count: $count\n      window: $window\n      app: $app\n      calendar: $calendar\n    )\n  }\n": types.PreviewScheduleDocument,
    "\n  query JobOverview($id: ID!, $app: String!, $hours: Int, $runs: Int) {\n    job(id: $id) {\n      ...JobFields\n      app {\n        id\n        name\n      }\n      upcoming(count: 5)\n      stats(hours: $hours) {\n        succeeded\n        failed\n        stopped\n        canceled\n        outcomes {\n          start\n          succeeded\n          failed\n          stopped\n          canceled\n        }\n      }\n    }\n    instances(app: $app, jobId: $id, first: $runs) {\n      edges {\n        node {\n          ...InstanceRow\n        }\n      }\n      totalCount\n    }\n  }\n": types.JobOverviewDocument,
    "\n  query Calendars($app: String!) {\n    calendars(app: $app) {\n      id\n      name\n      description\n      dates\n    }\n  }\n": types.CalendarsDocument,
    "\n  query JobVersions($id: ID!) {\n    job(id: $id) {\n      id\n      version\n      versions(first: 100) {\n        version\n        change\n        author\n        createdAt\n        processor\n        definition\n      }\n    }\n  }\n": types.JobVersionsDocument,
    "\n  mutation RestoreJobVersion($id: ID!, $version: Int!) {\n    restoreJobVersion(id: $id, version: $version) {\n      ...JobFields\n    }\n  }\n": types.RestoreJobVersionDocument,
    "\n  fragment AlarmRecordFields on AlarmRecord {\n    id\n    time\n    event\n    rule\n    outcome\n    channel\n    target\n    statusCode\n    answer\n    attempts\n    summary\n    instanceId\n    workflowInstanceId\n  }\n": types.AlarmRecordFieldsFragmentDoc,
    "\n  query JobAlarmHistory($id: ID!, $first: Int, $after: String) {\n    job(id: $id) {\n      id\n      alarmHistory(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          cursor\n          node {\n            ...AlarmRecordFields\n          }\n        }\n      }\n    }\n  }\n": types.JobAlarmHistoryDocument,
    "\n  mutation SendTestAlarm($jobId: ID, $workflowId: ID) {\n    sendTestAlarm(jobId: $jobId, workflowId: $workflowId) {\n      channel\n      target\n      ok\n      statusCode\n      answer\n    }\n  }\n": types.SendTestAlarmDocument,
    "\n  fragment PoolInstanceFields on Instance {\n    id\n    status\n    reason\n    result\n    triggerType\n    actualTriggerTime\n    startedTime\n    poolSlots\n    poolPosition\n    job {\n      id\n      name\n    }\n  }\n": types.PoolInstanceFieldsFragmentDoc,
    "\n  fragment PoolFields on Pool {\n    id\n    name\n    description\n    slots\n    usedSlots\n    holders {\n      ...PoolInstanceFields\n    }\n    queue {\n      ...PoolInstanceFields\n    }\n    jobs {\n      id\n      name\n      poolSlots\n    }\n    updatedAt\n  }\n": types.PoolFieldsFragmentDoc,
    "\n  query AppPools($app: String!) {\n    pools(app: $app) {\n      ...PoolFields\n    }\n  }\n": types.AppPoolsDocument,
    "\n  query PoolNames($app: String!) {\n    pools(app: $app) {\n      id\n      name\n      slots\n    }\n  }\n": types.PoolNamesDocument,
    "\n  mutation CreatePool($input: PoolInput!) {\n    createPool(input: $input) {\n      ...PoolFields\n    }\n  }\n": types.CreatePoolDocument,
    "\n  mutation UpdatePool($id: ID!, $input: PoolInput!) {\n    updatePool(id: $id, input: $input) {\n      ...PoolFields\n    }\n  }\n": types.UpdatePoolDocument,
    "\n  mutation DeletePool($id: ID!) {\n    deletePool(id: $id)\n  }\n": types.DeletePoolDocument,
    "\n  query RunReport($app: String, $from: Time!, $to: Time!, $timeZone: String) {\n    runReport(app: $app, from: $from, to: $to, timeZone: $timeZone) {\n      from\n      to\n      timeZone\n      days {\n        date\n        start\n        runs\n        succeeded\n        failed\n        stopped\n        canceled\n      }\n      rows {\n        date\n        job {\n          id\n          name\n          app {\n            id\n            name\n          }\n        }\n        runs\n        succeeded\n        failed\n        stopped\n        canceled\n        durationP50Ms\n        durationP95Ms\n        durationMaxMs\n      }\n    }\n  }\n": types.RunReportDocument,
    "\n  query AppsOverview($timeZone: String) {\n    appsOverview(timeZone: $timeZone) {\n      app {\n        id\n        name\n        description\n      }\n      jobs\n      runsToday\n      failuresToday\n      runningNow\n      workersOnline\n    }\n  }\n": types.AppsOverviewDocument,
    "\n  query Servers {\n    servers {\n      id\n      advertiseUrl\n      alive\n      startedAt\n      heartbeatAt\n      version\n    }\n  }\n": types.ServersDocument,
    "\n  query AppSettings {\n    apps {\n      id\n      name\n      description\n      createdAt\n      myRole\n      retentionDays\n      members {\n        userId\n        username\n        role\n        admin\n      }\n    }\n  }\n": types.AppSettingsDocument,
    "\n  mutation SetAppRole($app: String!, $username: String!, $role: AppRole) {\n    setAppRole(app: $app, username: $username, role: $role) {\n      id\n      myRole\n      members {\n        userId\n        username\n        role\n        admin\n      }\n    }\n  }\n": types.SetAppRoleDocument,
    "\n  mutation RotateAppSecret($app: String!) {\n    rotateAppSecret(app: $app) {\n      app {\n        id\n        name\n      }\n      secret\n    }\n  }\n": types.RotateAppSecretDocument,
    "\n  mutation DeleteApp($app: String!) {\n    deleteApp(app: $app)\n  }\n": types.DeleteAppDocument,
    "\n  mutation SetAppRetention($app: String!, $days: Int) {\n    setAppRetention(app: $app, days: $days) {\n      id\n      retentionDays\n    }\n  }\n": types.SetAppRetentionDocument,
    "\n  fragment ApiTokenFields on ApiToken {\n    id\n    name\n    app {\n      id\n      name\n    }\n    role\n    user {\n      id\n      username\n    }\n    createdAt\n    lastUsedAt\n    revokedAt\n  }\n": types.ApiTokenFieldsFragmentDoc,
    "\n  query ApiTokens {\n    apiTokens {\n      ...ApiTokenFields\n    }\n  }\n": types.ApiTokensDocument,
    "\n  mutation CreateApiToken($name: String!, $app: String, $role: AppRole) {\n    createApiToken(name: $name, app: $app, role: $role) {\n      token {\n        ...ApiTokenFields\n      }\n      secret\n    }\n  }\n": types.CreateApiTokenDocument,
    "\n  mutation RevokeApiToken($id: ID!) {\n    revokeApiToken(id: $id)\n  }\n": types.RevokeApiTokenDocument,
    "\n  query Users {\n    users {\n      id\n      username\n      admin\n      createdAt\n    }\n  }\n": types.UsersDocument,
    "\n  mutation CreateUser($username: String!, $password: String!, $admin: Boolean) {\n    createUser(username: $username, password: $password, admin: $admin) {\n      id\n      username\n      admin\n      createdAt\n    }\n  }\n": types.CreateUserDocument,
    "\n  query Workers($app: String!) {\n    workers(app: $app) {\n      ...WorkerRow\n    }\n  }\n": types.WorkersDocument,
    "\n  subscription WorkersUpdated($app: String!) {\n    workersUpdated(app: $app) {\n      ...WorkerRow\n    }\n  }\n": types.WorkersUpdatedDocument,
    "\n  fragment WorkerRow on Worker {\n    id\n    host\n    tags\n    processors\n    slots\n    metrics {\n      cpuCores\n      load1\n      freeMemoryMB\n      freeDiskMB\n    }\n    connectedAt\n    lastHeartbeat\n    alive\n    health\n  }\n": types.WorkerRowFragmentDoc,
    "\n  fragment WorkflowRow on Workflow {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    version\n    nextTriggerTime\n    lastRun {\n      id\n      status\n      triggerTime\n    }\n  }\n": types.WorkflowRowFragmentDoc,
    "\n  query Workflows($app: String!, $first: Int, $after: String, $search: String) {\n    workflows(app: $app, first: $first, after: $after, search: $search) {\n      edges {\n        cursor\n        node {\n          ...WorkflowRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n": types.WorkflowsDocument,
    "\n  fragment WorkflowFields on Workflow {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    maxInstances\n    overlapPolicy\n    misfirePolicy\n    failFast\n    version\n    nextTriggerTime\n    updatedAt\n    managedBy\n    managedSource\n    nodes {\n      key\n      type\n      name\n      jobId\n      workflowId\n      expression\n      params\n      enabled\n      skipWhenFailed\n      triggerRule\n      parallelism\n      timeoutMs\n      retries\n      pool\n      poolSlots\n      position {\n        x\n        y\n      }\n    }\n    edges {\n      from\n      to\n      label\n    }\n    alarm {\n      rules {\n        type\n        threshold\n        silenceSec\n      }\n      channels {\n        type\n        target\n      }\n    }\n  }\n": types.WorkflowFieldsFragmentDoc,
    "\n  query Workflow($id: ID!) {\n    workflow(id: $id) {\n      ...WorkflowFields\n    }\n  }\n": types.WorkflowDocument,
    "\n  query WorkflowVersions($id: ID!) {\n    workflow(id: $id) {\n      id\n      version\n      versions {\n        version\n        createdBy\n        createdAt\n        definition\n      }\n    }\n  }\n": types.WorkflowVersionsDocument,
    "\n  query WorkflowAlarmHistory($id: ID!, $first: Int, $after: String) {\n    workflow(id: $id) {\n      id\n      alarmHistory(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          cursor\n          node {\n            ...AlarmRecordFields\n          }\n        }\n      }\n    }\n  }\n": types.WorkflowAlarmHistoryDocument,
    "\n  query WorkflowChoices($app: String!) {\n    jobs(app: $app, first: 500) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n    workflows(app: $app, first: 500) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n    pools(app: $app) {\n      id\n      name\n      slots\n    }\n  }\n": types.WorkflowChoicesDocument,
    "\n  mutation CreateWorkflow($input: WorkflowInput!) {\n    createWorkflow(input: $input) {\n      ...WorkflowFields\n    }\n  }\n": types.CreateWorkflowDocument,
    "\n  mutation UpdateWorkflow($id: ID!, $input: WorkflowInput!, $expectedVersion: Int) {\n    updateWorkflow(id: $id, input: $input, expectedVersion: $expectedVersion) {\n      ...WorkflowFields\n    }\n  }\n": types.UpdateWorkflowDocument,
    "\n  mutation SetWorkflowEnabled($id: ID!, $enabled: Boolean!) {\n    setWorkflowEnabled(id: $id, enabled: $enabled) {\n      ...WorkflowRow\n    }\n  }\n": types.SetWorkflowEnabledDocument,
    "\n  mutation DeleteWorkflow($id: ID!) {\n    deleteWorkflow(id: $id)\n  }\n": types.DeleteWorkflowDocument,
    "\n  mutation RestoreWorkflowVersion($id: ID!, $version: Int!) {\n    restoreWorkflowVersion(id: $id, version: $version) {\n      ...WorkflowFields\n    }\n  }\n": types.RestoreWorkflowVersionDocument,
    "\n  query ExportWorkflow($id: ID!) {\n    exportWorkflow(id: $id)\n  }\n": types.ExportWorkflowDocument,
    "\n  mutation ImportWorkflow($app: String!, $definition: JSON!, $replace: Boolean) {\n    importWorkflow(app: $app, definition: $definition, replace: $replace) {\n      id\n      name\n    }\n  }\n": types.ImportWorkflowDocument,
    "\n  mutation RunWorkflow($id: ID!, $context: JSON, $delayMs: Int, $idempotencyKey: String) {\n    runWorkflow(id: $id, context: $context, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {\n      id\n      status\n    }\n  }\n": types.RunWorkflowDocument,
    "\n  fragment WorkflowRunRow on WorkflowInstance {\n    id\n    status\n    reason\n    version\n    triggerType\n    triggerTime\n    startedTime\n    finishedTime\n    parentNodeKey\n    workflow {\n      id\n      name\n    }\n  }\n": types.WorkflowRunRowFragmentDoc,
    "\n  query WorkflowRuns($app: String!, $workflowId: ID, $status: [WorkflowInstanceStatus!], $first: Int, $after: String) {\n    workflowInstances(app: $app, workflowId: $workflowId, status: $status, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...WorkflowRunRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n": types.WorkflowRunsDocument,
    "\n  fragment WorkflowRunFields on WorkflowInstance {\n    ...WorkflowRunRow\n    result\n    context\n    initialContext\n    createdAt\n    parent {\n      id\n      workflow {\n        id\n        name\n      }\n    }\n    edges {\n      from\n      to\n      label\n    }\n    nodes {\n      key\n      type\n      name\n      status\n      reason\n      message\n      result\n      output\n      failureIgnored\n      generation\n      items\n      decidedBy\n      comment\n      deadline\n      startedTime\n      finishedTime\n      child {\n        id\n        status\n      }\n      instances {\n        id\n        status\n        attempt\n        startedTime\n        finishedTime\n        result\n        reason\n        params\n        workflowInput\n        worker {\n          id\n          host\n        }\n      }\n    }\n  }\n": types.WorkflowRunFieldsFragmentDoc,
    "\n  query WorkflowRun($id: ID!) {\n    workflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": types.WorkflowRunDocument,
    "\n  subscription WorkflowRunUpdated($id: ID!) {\n    workflowInstanceUpdated(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": types.WorkflowRunUpdatedDocument,
    "\n  mutation StopWorkflowRun($id: ID!) {\n    stopWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": types.StopWorkflowRunDocument,
    "\n  mutation RetryWorkflowRun($id: ID!) {\n    retryWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": types.RetryWorkflowRunDocument,
    "\n  mutation PauseWorkflowRun($id: ID!) {\n    pauseWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": types.PauseWorkflowRunDocument,
    "\n  mutation ResumeWorkflowRun($id: ID!) {\n    resumeWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n": types.ResumeWorkflowRunDocument,
    "\n  mutation MarkWorkflowNodeSucceeded($id: ID!, $node: String!) {\n    markWorkflowNodeSucceeded(workflowInstanceId: $id, node: $node) {\n      ...WorkflowRunFields\n    }\n  }\n": types.MarkWorkflowNodeSucceededDocument,
    "\n  mutation RerunWorkflowNode($id: ID!, $node: String!, $downstream: Boolean!) {\n    rerunWorkflowNode(workflowInstanceId: $id, node: $node, downstream: $downstream) {\n      ...WorkflowRunFields\n    }\n  }\n": types.RerunWorkflowNodeDocument,
    "\n  mutation ApproveWorkflowNode($id: ID!, $node: String!, $approve: Boolean!, $comment: String) {\n    approveWorkflowNode(workflowInstanceId: $id, node: $node, approve: $approve, comment: $comment) {\n      ...WorkflowRunFields\n    }\n  }\n": types.ApproveWorkflowNodeDocument,
    "\n  fragment WorkflowGridRun on WorkflowInstance {\n    id\n    status\n    version\n    triggerTime\n    startedTime\n    finishedTime\n    parentNodeKey\n    nodes {\n      key\n      name\n      type\n      status\n      reason\n      startedTime\n      finishedTime\n    }\n  }\n": types.WorkflowGridRunFragmentDoc,
    "\n  query WorkflowGrid($app: String!, $workflowId: ID!, $first: Int) {\n    workflowInstances(app: $app, workflowId: $workflowId, first: $first) {\n      edges {\n        node {\n          ...WorkflowGridRun\n        }\n      }\n      totalCount\n    }\n  }\n": types.WorkflowGridDocument,
    "\n  subscription WorkflowGridRunChanged($id: ID!) {\n    workflowInstanceUpdated(id: $id) {\n      id\n      status\n    }\n  }\n": types.WorkflowGridRunChangedDocument,
    "\n  subscription WorkflowGridInstanceChanged($app: String!) {\n    instanceUpdated(app: $app) {\n      id\n      triggerType\n    }\n  }\n": types.WorkflowGridInstanceChangedDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ChangePassword($oldPassword: String!, $newPassword: String!) {\n    changePassword(oldPassword: $oldPassword, newPassword: $newPassword)\n  }\n"): (typeof documents)["\n  mutation ChangePassword($oldPassword: String!, $newPassword: String!) {\n    changePassword(oldPassword: $oldPassword, newPassword: $newPassword)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Apps {\n    apps {\n      id\n      name\n      description\n      createdAt\n      myRole\n    }\n  }\n"): (typeof documents)["\n  query Apps {\n    apps {\n      id\n      name\n      description\n      createdAt\n      myRole\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateApp($name: String!, $description: String) {\n    createApp(name: $name, description: $description) {\n      app {\n        id\n        name\n        description\n        createdAt\n        myRole\n      }\n      secret\n    }\n  }\n"): (typeof documents)["\n  mutation CreateApp($name: String!, $description: String) {\n    createApp(name: $name, description: $description) {\n      app {\n        id\n        name\n        description\n        createdAt\n        myRole\n      }\n      secret\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AuditLog($app: String!, $first: Int!, $after: String) {\n    auditLog(app: $app, first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query AuditLog($app: String!, $first: Int!, $after: String) {\n    auditLog(app: $app, first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment AuditRow on AuditEntry {\n    id\n    time\n    actor\n    tokenName\n    clientAddress\n    action\n    objectType\n    objectId\n    objectName\n    outcome\n    error\n    changes {\n      field\n      before\n      after\n    }\n  }\n"): (typeof documents)["\n  fragment AuditRow on AuditEntry {\n    id\n    time\n    actor\n    tokenName\n    clientAddress\n    action\n    objectType\n    objectId\n    objectName\n    outcome\n    error\n    changes {\n      field\n      before\n      after\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Me {\n    me {\n      id\n      username\n      admin\n      ssoSubject\n    }\n  }\n"): (typeof documents)["\n  query Me {\n    me {\n      id\n      username\n      admin\n      ssoSubject\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SignInOptions {\n    signInOptions {\n      password\n      sso {\n        name\n        loginUrl\n      }\n    }\n  }\n"): (typeof documents)["\n  query SignInOptions {\n    signInOptions {\n      password\n      sso {\n        name\n        loginUrl\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Login($username: String!, $password: String!) {\n    login(username: $username, password: $password) {\n      expiresAt\n      user {\n        id\n        username\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation Login($username: String!, $password: String!) {\n    login(username: $username, password: $password) {\n      expiresAt\n      user {\n        id\n        username\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Logout {\n    logout\n  }\n"): (typeof documents)["\n  mutation Logout {\n    logout\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CalendarFields on Calendar {\n    id\n    name\n    description\n    dates\n    jobs {\n      id\n      name\n    }\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment CalendarFields on Calendar {\n    id\n    name\n    description\n    dates\n    jobs {\n      id\n      name\n    }\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AppCalendars($app: String!) {\n    calendars(app: $app) {\n      ...CalendarFields\n    }\n  }\n"): (typeof documents)["\n  query AppCalendars($app: String!) {\n    calendars(app: $app) {\n      ...CalendarFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateCalendar($input: CalendarInput!) {\n    createCalendar(input: $input) {\n      ...CalendarFields\n    }\n  }\n"): (typeof documents)["\n  mutation CreateCalendar($input: CalendarInput!) {\n    createCalendar(input: $input) {\n      ...CalendarFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateCalendar($id: ID!, $input: CalendarInput!) {\n    updateCalendar(id: $id, input: $input) {\n      ...CalendarFields\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateCalendar($id: ID!, $input: CalendarInput!) {\n    updateCalendar(id: $id, input: $input) {\n      ...CalendarFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteCalendar($id: ID!) {\n    deleteCalendar(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteCalendar($id: ID!) {\n    deleteCalendar(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AppStats($app: String!, $hours: Int) {\n    appStats(app: $app, hours: $hours) {\n      jobs\n      enabledJobs\n      waiting\n      running\n      succeeded\n      failed\n      workersAlive\n      outcomes {\n        start\n        succeeded\n        failed\n        stopped\n        canceled\n      }\n    }\n  }\n"): (typeof documents)["\n  query AppStats($app: String!, $hours: Int) {\n    appStats(app: $app, hours: $hours) {\n      jobs\n      enabledJobs\n      waiting\n      running\n      succeeded\n      failed\n      workersAlive\n      outcomes {\n        start\n        succeeded\n        failed\n        stopped\n        canceled\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OnCall($app: String!, $hours: Int) {\n    appStats(app: $app, hours: $hours) {\n      capacity {\n        workers\n        slots\n        freeSlots\n      }\n      lag {\n        samples\n        triggerLateness {\n          ...LatencySummaryFields\n        }\n        fireToStart {\n          ...LatencySummaryFields\n        }\n        buckets {\n          start\n          triggerLateness {\n            ...LatencySummaryFields\n          }\n          fireToStart {\n            ...LatencySummaryFields\n          }\n        }\n      }\n      latestFailures(first: 10) {\n        id\n        reason\n        result\n        finishedTime\n        job {\n          id\n          name\n        }\n      }\n      nextFires(first: 10) {\n        time\n        job {\n          id\n          name\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query OnCall($app: String!, $hours: Int) {\n    appStats(app: $app, hours: $hours) {\n      capacity {\n        workers\n        slots\n        freeSlots\n      }\n      lag {\n        samples\n        triggerLateness {\n          ...LatencySummaryFields\n        }\n        fireToStart {\n          ...LatencySummaryFields\n        }\n        buckets {\n          start\n          triggerLateness {\n            ...LatencySummaryFields\n          }\n          fireToStart {\n            ...LatencySummaryFields\n          }\n        }\n      }\n      latestFailures(first: 10) {\n        id\n        reason\n        result\n        finishedTime\n        job {\n          id\n          name\n        }\n      }\n      nextFires(first: 10) {\n        time\n        job {\n          id\n          name\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment LatencySummaryFields on LatencySummary {\n    count\n    p50\n    p99\n    max\n  }\n"): (typeof documents)["\n  fragment LatencySummaryFields on LatencySummary {\n    count\n    p50\n    p99\n    max\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment InstanceRow on Instance {\n    id\n    status\n    triggerType\n    expectedTriggerTime\n    actualTriggerTime\n    startedTime\n    finishedTime\n    attempt\n    job {\n      id\n      name\n    }\n    worker {\n      id\n      host\n    }\n  }\n"): (typeof documents)["\n  fragment InstanceRow on Instance {\n    id\n    status\n    triggerType\n    expectedTriggerTime\n    actualTriggerTime\n    startedTime\n    finishedTime\n    attempt\n    job {\n      id\n      name\n    }\n    worker {\n      id\n      host\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Instances(\n    $app: String!\n    $jobId: ID\n    $status: [InstanceStatus!]\n    $from: Time\n    $to: Time\n    $first: Int\n    $after: String\n  ) {\n    instances(app: $app, jobId: $jobId, status: $status, from: $from, to: $to, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...InstanceRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n"): (typeof documents)["\n  query Instances(\n    $app: String!\n    $jobId: ID\n    $status: [InstanceStatus!]\n    $from: Time\n    $to: Time\n    $first: Int\n    $after: String\n  ) {\n    instances(app: $app, jobId: $jobId, status: $status, from: $from, to: $to, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...InstanceRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query JobChoices($app: String!, $first: Int) {\n    jobs(app: $app, first: $first) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query JobChoices($app: String!, $first: Int) {\n    jobs(app: $app, first: $first) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment InstanceFields on Instance {\n    ...InstanceRow\n    traceId\n    params\n    result\n    reason\n    nextAttemptAt\n    job {\n      id\n      executionMode\n    }\n    worker {\n      id\n      host\n      alive\n      health\n      lastHeartbeat\n    }\n    attempts {\n      attempt\n      status\n      worker\n      result\n      reason\n      startedTime\n      finishedTime\n    }\n    tasks {\n      total\n      waiting\n      running\n      succeeded\n      failed\n      stopped\n    }\n    unqualifiedAt\n    unqualifiedWorkers {\n      worker\n      host\n      filter\n      reason\n    }\n  }\n"): (typeof documents)["\n  fragment InstanceFields on Instance {\n    ...InstanceRow\n    traceId\n    params\n    result\n    reason\n    nextAttemptAt\n    job {\n      id\n      executionMode\n    }\n    worker {\n      id\n      host\n      alive\n      health\n      lastHeartbeat\n    }\n    attempts {\n      attempt\n      status\n      worker\n      result\n      reason\n      startedTime\n      finishedTime\n    }\n    tasks {\n      total\n      waiting\n      running\n      succeeded\n      failed\n      stopped\n    }\n    unqualifiedAt\n    unqualifiedWorkers {\n      worker\n      host\n      filter\n      reason\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Instance($id: ID!) {\n    instance(id: $id) {\n      ...InstanceFields\n    }\n    traceUrlTemplate\n  }\n"): (typeof documents)["\n  query Instance($id: ID!) {\n    instance(id: $id) {\n      ...InstanceFields\n    }\n    traceUrlTemplate\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query InstanceLogs($id: ID!, $afterSeq: Int, $first: Int) {\n    instance(id: $id) {\n      id\n      logs(afterSeq: $afterSeq, first: $first) {\n        lines {\n          seq\n          time\n          level\n          worker\n          text\n          attempt\n        }\n        hasMore\n      }\n    }\n  }\n"): (typeof documents)["\n  query InstanceLogs($id: ID!, $afterSeq: Int, $first: Int) {\n    instance(id: $id) {\n      id\n      logs(afterSeq: $afterSeq, first: $first) {\n        lines {\n          seq\n          time\n          level\n          worker\n          text\n          attempt\n        }\n        hasMore\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StopInstance($id: ID!) {\n    stopInstance(id: $id) {\n      ...InstanceFields\n    }\n  }\n"): (typeof documents)["\n  mutation StopInstance($id: ID!) {\n    stopInstance(id: $id) {\n      ...InstanceFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RetryInstance($id: ID!) {\n    retryInstance(id: $id) {\n      ...InstanceFields\n    }\n  }\n"): (typeof documents)["\n  mutation RetryInstance($id: ID!) {\n    retryInstance(id: $id) {\n      ...InstanceFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription InstanceLogLines($instanceId: ID!, $afterSeq: Int) {\n    instanceLogs(instanceId: $instanceId, afterSeq: $afterSeq) {\n      seq\n      time\n      level\n      worker\n      text\n      attempt\n    }\n  }\n"): (typeof documents)["\n  subscription InstanceLogLines($instanceId: ID!, $afterSeq: Int) {\n    instanceLogs(instanceId: $instanceId, afterSeq: $afterSeq) {\n      seq\n      time\n      level\n      worker\n      text\n      attempt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription InstanceChanges($app: String!, $jobId: ID) {\n    instanceUpdated(app: $app, jobId: $jobId) {\n      id\n      status\n    }\n  }\n"): (typeof documents)["\n  subscription InstanceChanges($app: String!, $jobId: ID) {\n    instanceUpdated(app: $app, jobId: $jobId) {\n      id\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription InstanceLiveChanges($app: String!, $jobId: ID) {\n    instanceUpdated(app: $app, jobId: $jobId) {\n      id\n      status\n      attempt\n      reason\n      startedTime\n      finishedTime\n      worker {\n        id\n        host\n        alive\n        health\n        lastHeartbeat\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription InstanceLiveChanges($app: String!, $jobId: ID) {\n    instanceUpdated(app: $app, jobId: $jobId) {\n      id\n      status\n      attempt\n      reason\n      startedTime\n      finishedTime\n      worker {\n        id\n        host\n        alive\n        health\n        lastHeartbeat\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query InstanceTaskSummary($id: ID!) {\n    instance(id: $id) {\n      id\n      status\n      tasks {\n        total\n        waiting\n        running\n        succeeded\n        failed\n        stopped\n      }\n    }\n  }\n"): (typeof documents)["\n  query InstanceTaskSummary($id: ID!) {\n    instance(id: $id) {\n      id\n      status\n      tasks {\n        total\n        waiting\n        running\n        succeeded\n        failed\n        stopped\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment TaskRow on Task {\n    id\n    name\n    kind\n    status\n    workerId\n    attempt\n    createdTime\n    finishedTime\n    nextAttemptAt\n  }\n"): (typeof documents)["\n  fragment TaskRow on Task {\n    id\n    name\n    kind\n    status\n    workerId\n    attempt\n    createdTime\n    finishedTime\n    nextAttemptAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query InstanceTasks($id: ID!, $status: [TaskStatus!], $first: Int, $after: String) {\n    instance(id: $id) {\n      id\n      taskList(status: $status, first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            ...TaskRow\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query InstanceTasks($id: ID!, $status: [TaskStatus!], $first: Int, $after: String) {\n    instance(id: $id) {\n      id\n      taskList(status: $status, first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            ...TaskRow\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query InstanceTask($id: ID!, $taskId: ID!) {\n    instance(id: $id) {\n      id\n      task(id: $taskId) {\n        ...TaskRow\n        parentId\n        payload\n        payloadSize\n        result\n        resultSize\n        instanceAttempt\n        dispatchedTime\n        updatedTime\n        worker {\n          id\n          host\n          alive\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query InstanceTask($id: ID!, $taskId: ID!) {\n    instance(id: $id) {\n      id\n      task(id: $taskId) {\n        ...TaskRow\n        parentId\n        payload\n        payloadSize\n        result\n        resultSize\n        instanceAttempt\n        dispatchedTime\n        updatedTime\n        worker {\n          id\n          host\n          alive\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment JobRow on Job {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    processorType\n    executionMode\n    nextTriggerTime\n    lastRun {\n      id\n      status\n      actualTriggerTime\n    }\n    workerFilter {\n      tags\n    }\n  }\n"): (typeof documents)["\n  fragment JobRow on Job {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    processorType\n    executionMode\n    nextTriggerTime\n    lastRun {\n      id\n      status\n      actualTriggerTime\n    }\n    workerFilter {\n      tags\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Jobs($app: String!, $first: Int, $after: String, $search: String) {\n    jobs(app: $app, first: $first, after: $after, search: $search) {\n      edges {\n        cursor\n        node {\n          ...JobRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query Jobs($app: String!, $first: Int, $after: String, $search: String) {\n    jobs(app: $app, first: $first, after: $after, search: $search) {\n      edges {\n        cursor\n        node {\n          ...JobRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment JobFields on Job {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    scheduleWindow {\n      start\n      end\n      days\n    }\n    calendar {\n      id\n      name\n    }\n    managedBy\n    managedSource\n    version\n    lifecycle {\n      start\n      end\n    }\n    executionMode\n    processorType\n    processor\n    params\n    maxInstances\n    taskConcurrency\n    timeoutMs\n    instanceRetries\n    taskRetries\n    overlapPolicy\n    maxQueued\n    priority\n    retryDelayMs\n    retryBackoff\n    retryDelayMaxMs\n    pool {\n      id\n      name\n    }\n    poolSlots\n    workerFilter {\n      designated\n      tags\n      minCpuCores\n      minMemoryMB\n      minDiskMB\n      maxWorkers\n    }\n    dispatchStrategy\n    misfirePolicy\n    alarm {\n      rules {\n        type\n        threshold\n        silenceSec\n      }\n      channels {\n        type\n        target\n      }\n    }\n    nextTriggerTime\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment JobFields on Job {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    scheduleWindow {\n      start\n      end\n      days\n    }\n    calendar {\n      id\n      name\n    }\n    managedBy\n    managedSource\n    version\n    lifecycle {\n      start\n      end\n    }\n    executionMode\n    processorType\n    processor\n    params\n    maxInstances\n    taskConcurrency\n    timeoutMs\n    instanceRetries\n    taskRetries\n    overlapPolicy\n    maxQueued\n    priority\n    retryDelayMs\n    retryBackoff\n    retryDelayMaxMs\n    pool {\n      id\n      name\n    }\n    poolSlots\n    workerFilter {\n      designated\n      tags\n      minCpuCores\n      minMemoryMB\n      minDiskMB\n      maxWorkers\n    }\n    dispatchStrategy\n    misfirePolicy\n    alarm {\n      rules {\n        type\n        threshold\n        silenceSec\n      }\n      channels {\n        type\n        target\n      }\n    }\n    nextTriggerTime\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Job($id: ID!) {\n    job(id: $id) {\n      ...JobFields\n      app {\n        id\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  query Job($id: ID!) {\n    job(id: $id) {\n      ...JobFields\n      app {\n        id\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateJob($input: JobInput!) {\n    createJob(input: $input) {\n      ...JobFields\n    }\n  }\n"): (typeof documents)["\n  mutation CreateJob($input: JobInput!) {\n    createJob(input: $input) {\n      ...JobFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateJob($id: ID!, $input: JobInput!) {\n    updateJob(id: $id, input: $input) {\n      ...JobFields\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateJob($id: ID!, $input: JobInput!) {\n    updateJob(id: $id, input: $input) {\n      ...JobFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetJobEnabled($id: ID!, $enabled: Boolean!) {\n    setJobEnabled(id: $id, enabled: $enabled) {\n      ...JobRow\n    }\n  }\n"): (typeof documents)["\n  mutation SetJobEnabled($id: ID!, $enabled: Boolean!) {\n    setJobEnabled(id: $id, enabled: $enabled) {\n      ...JobRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteJob($id: ID!) {\n    deleteJob(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteJob($id: ID!) {\n    deleteJob(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RunJob($id: ID!, $params: String, $delayMs: Int, $idempotencyKey: String) {\n    runJob(id: $id, params: $params, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {\n      id\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation RunJob($id: ID!, $params: String, $delayMs: Int, $idempotencyKey: String) {\n    runJob(id: $id, params: $params, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {\n      id\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PreviewSchedule(\n    $type: ScheduleType!\n    $expression: String!\n    $timeZone: String\n    $count: Int\n    $window: ScheduleWindowInput\n    $app: String\n    $calendar: String\n  ) {\n    previewSchedule(\n      type: $type\n      expression: $expression\n      timeZone: $timeZone\n      count: $count\n      window: $window\n      app: $app\n      calendar: $calendar\n    )\n  }\n"): (typeof documents)["\n  query PreviewSchedule(\n    $type: ScheduleType!\n    $expression: String!\n    $timeZone: String\n    $count: Int\n    $window: ScheduleWindowInput\n    $app: String\n    $calendar: String\n  ) {\n    previewSchedule(\n      type: $type\n      expression: $expression\n      timeZone: $timeZone\n      count: $count\n      window: $window\n      app: $app\n      calendar: $calendar\n    )\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query JobOverview($id: ID!, $app: String!, $hours: Int, $runs: Int) {\n    job(id: $id) {\n      ...JobFields\n      app {\n        id\n        name\n      }\n      upcoming(count: 5)\n      stats(hours: $hours) {\n        succeeded\n        failed\n        stopped\n        canceled\n        outcomes {\n          start\n          succeeded\n          failed\n          stopped\n          canceled\n        }\n      }\n    }\n    instances(app: $app, jobId: $id, first: $runs) {\n      edges {\n        node {\n          ...InstanceRow\n        }\n      }\n      totalCount\n    }\n  }\n"): (typeof documents)["\n  query JobOverview($id: ID!, $app: String!, $hours: Int, $runs: Int) {\n    job(id: $id) {\n      ...JobFields\n      app {\n        id\n        name\n      }\n      upcoming(count: 5)\n      stats(hours: $hours) {\n        succeeded\n        failed\n        stopped\n        canceled\n        outcomes {\n          start\n          succeeded\n          failed\n          stopped\n          canceled\n        }\n      }\n    }\n    instances(app: $app, jobId: $id, first: $runs) {\n      edges {\n        node {\n          ...InstanceRow\n        }\n      }\n      totalCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Calendars($app: String!) {\n    calendars(app: $app) {\n      id\n      name\n      description\n      dates\n    }\n  }\n"): (typeof documents)["\n  query Calendars($app: String!) {\n    calendars(app: $app) {\n      id\n      name\n      description\n      dates\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query JobVersions($id: ID!) {\n    job(id: $id) {\n      id\n      version\n      versions(first: 100) {\n        version\n        change\n        author\n        createdAt\n        processor\n        definition\n      }\n    }\n  }\n"): (typeof documents)["\n  query JobVersions($id: ID!) {\n    job(id: $id) {\n      id\n      version\n      versions(first: 100) {\n        version\n        change\n        author\n        createdAt\n        processor\n        definition\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RestoreJobVersion($id: ID!, $version: Int!) {\n    restoreJobVersion(id: $id, version: $version) {\n      ...JobFields\n    }\n  }\n"): (typeof documents)["\n  mutation RestoreJobVersion($id: ID!, $version: Int!) {\n    restoreJobVersion(id: $id, version: $version) {\n      ...JobFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment AlarmRecordFields on AlarmRecord {\n    id\n    time\n    event\n    rule\n    outcome\n    channel\n    target\n    statusCode\n    answer\n    attempts\n    summary\n    instanceId\n    workflowInstanceId\n  }\n"): (typeof documents)["\n  fragment AlarmRecordFields on AlarmRecord {\n    id\n    time\n    event\n    rule\n    outcome\n    channel\n    target\n    statusCode\n    answer\n    attempts\n    summary\n    instanceId\n    workflowInstanceId\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query JobAlarmHistory($id: ID!, $first: Int, $after: String) {\n    job(id: $id) {\n      id\n      alarmHistory(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          cursor\n          node {\n            ...AlarmRecordFields\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query JobAlarmHistory($id: ID!, $first: Int, $after: String) {\n    job(id: $id) {\n      id\n      alarmHistory(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          cursor\n          node {\n            ...AlarmRecordFields\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SendTestAlarm($jobId: ID, $workflowId: ID) {\n    sendTestAlarm(jobId: $jobId, workflowId: $workflowId) {\n      channel\n      target\n      ok\n      statusCode\n      answer\n    }\n  }\n"): (typeof documents)["\n  mutation SendTestAlarm($jobId: ID, $workflowId: ID) {\n    sendTestAlarm(jobId: $jobId, workflowId: $workflowId) {\n      channel\n      target\n      ok\n      statusCode\n      answer\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PoolInstanceFields on Instance {\n    id\n    status\n    reason\n    result\n    triggerType\n    actualTriggerTime\n    startedTime\n    poolSlots\n    poolPosition\n    job {\n      id\n      name\n    }\n  }\n"): (typeof documents)["\n  fragment PoolInstanceFields on Instance {\n    id\n    status\n    reason\n    result\n    triggerType\n    actualTriggerTime\n    startedTime\n    poolSlots\n    poolPosition\n    job {\n      id\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PoolFields on Pool {\n    id\n    name\n    description\n    slots\n    usedSlots\n    holders {\n      ...PoolInstanceFields\n    }\n    queue {\n      ...PoolInstanceFields\n    }\n    jobs {\n      id\n      name\n      poolSlots\n    }\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment PoolFields on Pool {\n    id\n    name\n    description\n    slots\n    usedSlots\n    holders {\n      ...PoolInstanceFields\n    }\n    queue {\n      ...PoolInstanceFields\n    }\n    jobs {\n      id\n      name\n      poolSlots\n    }\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AppPools($app: String!) {\n    pools(app: $app) {\n      ...PoolFields\n    }\n  }\n"): (typeof documents)["\n  query AppPools($app: String!) {\n    pools(app: $app) {\n      ...PoolFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PoolNames($app: String!) {\n    pools(app: $app) {\n      id\n      name\n      slots\n    }\n  }\n"): (typeof documents)["\n  query PoolNames($app: String!) {\n    pools(app: $app) {\n      id\n      name\n      slots\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreatePool($input: PoolInput!) {\n    createPool(input: $input) {\n      ...PoolFields\n    }\n  }\n"): (typeof documents)["\n  mutation CreatePool($input: PoolInput!) {\n    createPool(input: $input) {\n      ...PoolFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdatePool($id: ID!, $input: PoolInput!) {\n    updatePool(id: $id, input: $input) {\n      ...PoolFields\n    }\n  }\n"): (typeof documents)["\n  mutation UpdatePool($id: ID!, $input: PoolInput!) {\n    updatePool(id: $id, input: $input) {\n      ...PoolFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeletePool($id: ID!) {\n    deletePool(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeletePool($id: ID!) {\n    deletePool(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RunReport($app: String, $from: Time!, $to: Time!, $timeZone: String) {\n    runReport(app: $app, from: $from, to: $to, timeZone: $timeZone) {\n      from\n      to\n      timeZone\n      days {\n        date\n        start\n        runs\n        succeeded\n        failed\n        stopped\n        canceled\n      }\n      rows {\n        date\n        job {\n          id\n          name\n          app {\n            id\n            name\n          }\n        }\n        runs\n        succeeded\n        failed\n        stopped\n        canceled\n        durationP50Ms\n        durationP95Ms\n        durationMaxMs\n      }\n    }\n  }\n"): (typeof documents)["\n  query RunReport($app: String, $from: Time!, $to: Time!, $timeZone: String) {\n    runReport(app: $app, from: $from, to: $to, timeZone: $timeZone) {\n      from\n      to\n      timeZone\n      days {\n        date\n        start\n        runs\n        succeeded\n        failed\n        stopped\n        canceled\n      }\n      rows {\n        date\n        job {\n          id\n          name\n          app {\n            id\n            name\n          }\n        }\n        runs\n        succeeded\n        failed\n        stopped\n        canceled\n        durationP50Ms\n        durationP95Ms\n        durationMaxMs\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AppsOverview($timeZone: String) {\n    appsOverview(timeZone: $timeZone) {\n      app {\n        id\n        name\n        description\n      }\n      jobs\n      runsToday\n      failuresToday\n      runningNow\n      workersOnline\n    }\n  }\n"): (typeof documents)["\n  query AppsOverview($timeZone: String) {\n    appsOverview(timeZone: $timeZone) {\n      app {\n        id\n        name\n        description\n      }\n      jobs\n      runsToday\n      failuresToday\n      runningNow\n      workersOnline\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Servers {\n    servers {\n      id\n      advertiseUrl\n      alive\n      startedAt\n      heartbeatAt\n      version\n    }\n  }\n"): (typeof documents)["\n  query Servers {\n    servers {\n      id\n      advertiseUrl\n      alive\n      startedAt\n      heartbeatAt\n      version\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AppSettings {\n    apps {\n      id\n      name\n      description\n      createdAt\n      myRole\n      retentionDays\n      members {\n        userId\n        username\n        role\n        admin\n      }\n    }\n  }\n"): (typeof documents)["\n  query AppSettings {\n    apps {\n      id\n      name\n      description\n      createdAt\n      myRole\n      retentionDays\n      members {\n        userId\n        username\n        role\n        admin\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetAppRole($app: String!, $username: String!, $role: AppRole) {\n    setAppRole(app: $app, username: $username, role: $role) {\n      id\n      myRole\n      members {\n        userId\n        username\n        role\n        admin\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation SetAppRole($app: String!, $username: String!, $role: AppRole) {\n    setAppRole(app: $app, username: $username, role: $role) {\n      id\n      myRole\n      members {\n        userId\n        username\n        role\n        admin\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RotateAppSecret($app: String!) {\n    rotateAppSecret(app: $app) {\n      app {\n        id\n        name\n      }\n      secret\n    }\n  }\n"): (typeof documents)["\n  mutation RotateAppSecret($app: String!) {\n    rotateAppSecret(app: $app) {\n      app {\n        id\n        name\n      }\n      secret\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteApp($app: String!) {\n    deleteApp(app: $app)\n  }\n"): (typeof documents)["\n  mutation DeleteApp($app: String!) {\n    deleteApp(app: $app)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetAppRetention($app: String!, $days: Int) {\n    setAppRetention(app: $app, days: $days) {\n      id\n      retentionDays\n    }\n  }\n"): (typeof documents)["\n  mutation SetAppRetention($app: String!, $days: Int) {\n    setAppRetention(app: $app, days: $days) {\n      id\n      retentionDays\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ApiTokenFields on ApiToken {\n    id\n    name\n    app {\n      id\n      name\n    }\n    role\n    user {\n      id\n      username\n    }\n    createdAt\n    lastUsedAt\n    revokedAt\n  }\n"): (typeof documents)["\n  fragment ApiTokenFields on ApiToken {\n    id\n    name\n    app {\n      id\n      name\n    }\n    role\n    user {\n      id\n      username\n    }\n    createdAt\n    lastUsedAt\n    revokedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApiTokens {\n    apiTokens {\n      ...ApiTokenFields\n    }\n  }\n"): (typeof documents)["\n  query ApiTokens {\n    apiTokens {\n      ...ApiTokenFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateApiToken($name: String!, $app: String, $role: AppRole) {\n    createApiToken(name: $name, app: $app, role: $role) {\n      token {\n        ...ApiTokenFields\n      }\n      secret\n    }\n  }\n"): (typeof documents)["\n  mutation CreateApiToken($name: String!, $app: String, $role: AppRole) {\n    createApiToken(name: $name, app: $app, role: $role) {\n      token {\n        ...ApiTokenFields\n      }\n      secret\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeApiToken($id: ID!) {\n    revokeApiToken(id: $id)\n  }\n"): (typeof documents)["\n  mutation RevokeApiToken($id: ID!) {\n    revokeApiToken(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Users {\n    users {\n      id\n      username\n      admin\n      createdAt\n    }\n  }\n"): (typeof documents)["\n  query Users {\n    users {\n      id\n      username\n      admin\n      createdAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateUser($username: String!, $password: String!, $admin: Boolean) {\n    createUser(username: $username, password: $password, admin: $admin) {\n      id\n      username\n      admin\n      createdAt\n    }\n  }\n"): (typeof documents)["\n  mutation CreateUser($username: String!, $password: String!, $admin: Boolean) {\n    createUser(username: $username, password: $password, admin: $admin) {\n      id\n      username\n      admin\n      createdAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Workers($app: String!) {\n    workers(app: $app) {\n      ...WorkerRow\n    }\n  }\n"): (typeof documents)["\n  query Workers($app: String!) {\n    workers(app: $app) {\n      ...WorkerRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription WorkersUpdated($app: String!) {\n    workersUpdated(app: $app) {\n      ...WorkerRow\n    }\n  }\n"): (typeof documents)["\n  subscription WorkersUpdated($app: String!) {\n    workersUpdated(app: $app) {\n      ...WorkerRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment WorkerRow on Worker {\n    id\n    host\n    tags\n    processors\n    slots\n    metrics {\n      cpuCores\n      load1\n      freeMemoryMB\n      freeDiskMB\n    }\n    connectedAt\n    lastHeartbeat\n    alive\n    health\n  }\n"): (typeof documents)["\n  fragment WorkerRow on Worker {\n    id\n    host\n    tags\n    processors\n    slots\n    metrics {\n      cpuCores\n      load1\n      freeMemoryMB\n      freeDiskMB\n    }\n    connectedAt\n    lastHeartbeat\n    alive\n    health\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment WorkflowRow on Workflow {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    version\n    nextTriggerTime\n    lastRun {\n      id\n      status\n      triggerTime\n    }\n  }\n"): (typeof documents)["\n  fragment WorkflowRow on Workflow {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    version\n    nextTriggerTime\n    lastRun {\n      id\n      status\n      triggerTime\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Workflows($app: String!, $first: Int, $after: String, $search: String) {\n    workflows(app: $app, first: $first, after: $after, search: $search) {\n      edges {\n        cursor\n        node {\n          ...WorkflowRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n"): (typeof documents)["\n  query Workflows($app: String!, $first: Int, $after: String, $search: String) {\n    workflows(app: $app, first: $first, after: $after, search: $search) {\n      edges {\n        cursor\n        node {\n          ...WorkflowRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment WorkflowFields on Workflow {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    maxInstances\n    overlapPolicy\n    misfirePolicy\n    failFast\n    version\n    nextTriggerTime\n    updatedAt\n    managedBy\n    managedSource\n    nodes {\n      key\n      type\n      name\n      jobId\n      workflowId\n      expression\n      params\n      enabled\n      skipWhenFailed\n      triggerRule\n      parallelism\n      timeoutMs\n      retries\n      pool\n      poolSlots\n      position {\n        x\n        y\n      }\n    }\n    edges {\n      from\n      to\n      label\n    }\n    alarm {\n      rules {\n        type\n        threshold\n        silenceSec\n      }\n      channels {\n        type\n        target\n      }\n    }\n  }\n"): (typeof documents)["\n  fragment WorkflowFields on Workflow {\n    id\n    name\n    description\n    enabled\n    scheduleType\n    scheduleExpression\n    timeZone\n    maxInstances\n    overlapPolicy\n    misfirePolicy\n    failFast\n    version\n    nextTriggerTime\n    updatedAt\n    managedBy\n    managedSource\n    nodes {\n      key\n      type\n      name\n      jobId\n      workflowId\n      expression\n      params\n      enabled\n      skipWhenFailed\n      triggerRule\n      parallelism\n      timeoutMs\n      retries\n      pool\n      poolSlots\n      position {\n        x\n        y\n      }\n    }\n    edges {\n      from\n      to\n      label\n    }\n    alarm {\n      rules {\n        type\n        threshold\n        silenceSec\n      }\n      channels {\n        type\n        target\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Workflow($id: ID!) {\n    workflow(id: $id) {\n      ...WorkflowFields\n    }\n  }\n"): (typeof documents)["\n  query Workflow($id: ID!) {\n    workflow(id: $id) {\n      ...WorkflowFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowVersions($id: ID!) {\n    workflow(id: $id) {\n      id\n      version\n      versions {\n        version\n        createdBy\n        createdAt\n        definition\n      }\n    }\n  }\n"): (typeof documents)["\n  query WorkflowVersions($id: ID!) {\n    workflow(id: $id) {\n      id\n      version\n      versions {\n        version\n        createdBy\n        createdAt\n        definition\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowAlarmHistory($id: ID!, $first: Int, $after: String) {\n    workflow(id: $id) {\n      id\n      alarmHistory(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          cursor\n          node {\n            ...AlarmRecordFields\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query WorkflowAlarmHistory($id: ID!, $first: Int, $after: String) {\n    workflow(id: $id) {\n      id\n      alarmHistory(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          cursor\n          node {\n            ...AlarmRecordFields\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowChoices($app: String!) {\n    jobs(app: $app, first: 500) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n    workflows(app: $app, first: 500) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n    pools(app: $app) {\n      id\n      name\n      slots\n    }\n  }\n"): (typeof documents)["\n  query WorkflowChoices($app: String!) {\n    jobs(app: $app, first: 500) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n    workflows(app: $app, first: 500) {\n      edges {\n        node {\n          id\n          name\n        }\n      }\n    }\n    pools(app: $app) {\n      id\n      name\n      slots\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateWorkflow($input: WorkflowInput!) {\n    createWorkflow(input: $input) {\n      ...WorkflowFields\n    }\n  }\n"): (typeof documents)["\n  mutation CreateWorkflow($input: WorkflowInput!) {\n    createWorkflow(input: $input) {\n      ...WorkflowFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateWorkflow($id: ID!, $input: WorkflowInput!, $expectedVersion: Int) {\n    updateWorkflow(id: $id, input: $input, expectedVersion: $expectedVersion) {\n      ...WorkflowFields\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateWorkflow($id: ID!, $input: WorkflowInput!, $expectedVersion: Int) {\n    updateWorkflow(id: $id, input: $input, expectedVersion: $expectedVersion) {\n      ...WorkflowFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetWorkflowEnabled($id: ID!, $enabled: Boolean!) {\n    setWorkflowEnabled(id: $id, enabled: $enabled) {\n      ...WorkflowRow\n    }\n  }\n"): (typeof documents)["\n  mutation SetWorkflowEnabled($id: ID!, $enabled: Boolean!) {\n    setWorkflowEnabled(id: $id, enabled: $enabled) {\n      ...WorkflowRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteWorkflow($id: ID!) {\n    deleteWorkflow(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteWorkflow($id: ID!) {\n    deleteWorkflow(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RestoreWorkflowVersion($id: ID!, $version: Int!) {\n    restoreWorkflowVersion(id: $id, version: $version) {\n      ...WorkflowFields\n    }\n  }\n"): (typeof documents)["\n  mutation RestoreWorkflowVersion($id: ID!, $version: Int!) {\n    restoreWorkflowVersion(id: $id, version: $version) {\n      ...WorkflowFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExportWorkflow($id: ID!) {\n    exportWorkflow(id: $id)\n  }\n"): (typeof documents)["\n  query ExportWorkflow($id: ID!) {\n    exportWorkflow(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ImportWorkflow($app: String!, $definition: JSON!, $replace: Boolean) {\n    importWorkflow(app: $app, definition: $definition, replace: $replace) {\n      id\n      name\n    }\n  }\n"): (typeof documents)["\n  mutation ImportWorkflow($app: String!, $definition: JSON!, $replace: Boolean) {\n    importWorkflow(app: $app, definition: $definition, replace: $replace) {\n      id\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RunWorkflow($id: ID!, $context: JSON, $delayMs: Int, $idempotencyKey: String) {\n    runWorkflow(id: $id, context: $context, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {\n      id\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation RunWorkflow($id: ID!, $context: JSON, $delayMs: Int, $idempotencyKey: String) {\n    runWorkflow(id: $id, context: $context, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {\n      id\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment WorkflowRunRow on WorkflowInstance {\n    id\n    status\n    reason\n    version\n    triggerType\n    triggerTime\n    startedTime\n    finishedTime\n    parentNodeKey\n    workflow {\n      id\n      name\n    }\n  }\n"): (typeof documents)["\n  fragment WorkflowRunRow on WorkflowInstance {\n    id\n    status\n    reason\n    version\n    triggerType\n    triggerTime\n    startedTime\n    finishedTime\n    parentNodeKey\n    workflow {\n      id\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowRuns($app: String!, $workflowId: ID, $status: [WorkflowInstanceStatus!], $first: Int, $after: String) {\n    workflowInstances(app: $app, workflowId: $workflowId, status: $status, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...WorkflowRunRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n"): (typeof documents)["\n  query WorkflowRuns($app: String!, $workflowId: ID, $status: [WorkflowInstanceStatus!], $first: Int, $after: String) {\n    workflowInstances(app: $app, workflowId: $workflowId, status: $status, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...WorkflowRunRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment WorkflowRunFields on WorkflowInstance {\n    ...WorkflowRunRow\n    result\n    context\n    initialContext\n    createdAt\n    parent {\n      id\n      workflow {\n        id\n        name\n      }\n    }\n    edges {\n      from\n      to\n      label\n    }\n    nodes {\n      key\n      type\n      name\n      status\n      reason\n      message\n      result\n      output\n      failureIgnored\n      generation\n      items\n      decidedBy\n      comment\n      deadline\n      startedTime\n      finishedTime\n      child {\n        id\n        status\n      }\n      instances {\n        id\n        status\n        attempt\n        startedTime\n        finishedTime\n        result\n        reason\n        params\n        workflowInput\n        worker {\n          id\n          host\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  fragment WorkflowRunFields on WorkflowInstance {\n    ...WorkflowRunRow\n    result\n    context\n    initialContext\n    createdAt\n    parent {\n      id\n      workflow {\n        id\n        name\n      }\n    }\n    edges {\n      from\n      to\n      label\n    }\n    nodes {\n      key\n      type\n      name\n      status\n      reason\n      message\n      result\n      output\n      failureIgnored\n      generation\n      items\n      decidedBy\n      comment\n      deadline\n      startedTime\n      finishedTime\n      child {\n        id\n        status\n      }\n      instances {\n        id\n        status\n        attempt\n        startedTime\n        finishedTime\n        result\n        reason\n        params\n        workflowInput\n        worker {\n          id\n          host\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowRun($id: ID!) {\n    workflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"): (typeof documents)["\n  query WorkflowRun($id: ID!) {\n    workflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription WorkflowRunUpdated($id: ID!) {\n    workflowInstanceUpdated(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"): (typeof documents)["\n  subscription WorkflowRunUpdated($id: ID!) {\n    workflowInstanceUpdated(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StopWorkflowRun($id: ID!) {\n    stopWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"): (typeof documents)["\n  mutation StopWorkflowRun($id: ID!) {\n    stopWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RetryWorkflowRun($id: ID!) {\n    retryWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"): (typeof documents)["\n  mutation RetryWorkflowRun($id: ID!) {\n    retryWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PauseWorkflowRun($id: ID!) {\n    pauseWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"): (typeof documents)["\n  mutation PauseWorkflowRun($id: ID!) {\n    pauseWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResumeWorkflowRun($id: ID!) {\n    resumeWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"): (typeof documents)["\n  mutation ResumeWorkflowRun($id: ID!) {\n    resumeWorkflowInstance(id: $id) {\n      ...WorkflowRunFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MarkWorkflowNodeSucceeded($id: ID!, $node: String!) {\n    markWorkflowNodeSucceeded(workflowInstanceId: $id, node: $node) {\n      ...WorkflowRunFields\n    }\n  }\n"): (typeof documents)["\n  mutation MarkWorkflowNodeSucceeded($id: ID!, $node: String!) {\n    markWorkflowNodeSucceeded(workflowInstanceId: $id, node: $node) {\n      ...WorkflowRunFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RerunWorkflowNode($id: ID!, $node: String!, $downstream: Boolean!) {\n    rerunWorkflowNode(workflowInstanceId: $id, node: $node, downstream: $downstream) {\n      ...WorkflowRunFields\n    }\n  }\n"): (typeof documents)["\n  mutation RerunWorkflowNode($id: ID!, $node: String!, $downstream: Boolean!) {\n    rerunWorkflowNode(workflowInstanceId: $id, node: $node, downstream: $downstream) {\n      ...WorkflowRunFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApproveWorkflowNode($id: ID!, $node: String!, $approve: Boolean!, $comment: String) {\n    approveWorkflowNode(workflowInstanceId: $id, node: $node, approve: $approve, comment: $comment) {\n      ...WorkflowRunFields\n    }\n  }\n"): (typeof documents)["\n  mutation ApproveWorkflowNode($id: ID!, $node: String!, $approve: Boolean!, $comment: String) {\n    approveWorkflowNode(workflowInstanceId: $id, node: $node, approve: $approve, comment: $comment) {\n      ...WorkflowRunFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment WorkflowGridRun on WorkflowInstance {\n    id\n    status\n    version\n    triggerTime\n    startedTime\n    finishedTime\n    parentNodeKey\n    nodes {\n      key\n      name\n      type\n      status\n      reason\n      startedTime\n      finishedTime\n    }\n  }\n"): (typeof documents)["\n  fragment WorkflowGridRun on WorkflowInstance {\n    id\n    status\n    version\n    triggerTime\n    startedTime\n    finishedTime\n    parentNodeKey\n    nodes {\n      key\n      name\n      type\n      status\n      reason\n      startedTime\n      finishedTime\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowGrid($app: String!, $workflowId: ID!, $first: Int) {\n    workflowInstances(app: $app, workflowId: $workflowId, first: $first) {\n      edges {\n        node {\n          ...WorkflowGridRun\n        }\n      }\n      totalCount\n    }\n  }\n"): (typeof documents)["\n  query WorkflowGrid($app: String!, $workflowId: ID!, $first: Int) {\n    workflowInstances(app: $app, workflowId: $workflowId, first: $first) {\n      edges {\n        node {\n          ...WorkflowGridRun\n        }\n      }\n      totalCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription WorkflowGridRunChanged($id: ID!) {\n    workflowInstanceUpdated(id: $id) {\n      id\n      status\n    }\n  }\n"): (typeof documents)["\n  subscription WorkflowGridRunChanged($id: ID!) {\n    workflowInstanceUpdated(id: $id) {\n      id\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription WorkflowGridInstanceChanged($app: String!) {\n    instanceUpdated(app: $app) {\n      id\n      triggerType\n    }\n  }\n"): (typeof documents)["\n  subscription WorkflowGridInstanceChanged($app: String!) {\n    instanceUpdated(app: $app) {\n      id\n      triggerType\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;