import { graphql } from "../graphql";

/** What the jobs list shows of a job. */
export const JobRowFields = graphql(`
  fragment JobRow on Job {
    id
    name
    description
    enabled
    scheduleType
    scheduleExpression
    timeZone
    processorType
    executionMode
    nextTriggerTime
    lastRun {
      id
      status
      actualTriggerTime
    }
    workerFilter {
      tags
    }
  }
`);

export const JobsQuery = graphql(`
  query Jobs($app: String!, $first: Int, $after: String, $search: String) {
    jobs(app: $app, first: $first, after: $after, search: $search) {
      edges {
        cursor
        node {
          ...JobRow
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

/** Every field of a job, as the form edits it. */
export const JobFields = graphql(`
  fragment JobFields on Job {
    id
    name
    description
    enabled
    scheduleType
    scheduleExpression
    timeZone
    scheduleWindow {
      start
      end
      days
    }
    calendar {
      id
      name
    }
    managedBy
    managedSource
    version
    lifecycle {
      start
      end
    }
    executionMode
    processorType
    processor
    params
    maxInstances
    taskConcurrency
    timeoutMs
    instanceRetries
    taskRetries
    overlapPolicy
    maxQueued
    priority
    retryDelayMs
    retryBackoff
    retryDelayMaxMs
    pool {
      id
      name
    }
    poolSlots
    workerFilter {
      designated
      tags
      minCpuCores
      minMemoryMB
      minDiskMB
      maxWorkers
    }
    dispatchStrategy
    misfirePolicy
    alarm {
      rules {
        type
        threshold
        silenceSec
      }
      channels {
        type
        target
      }
    }
    nextTriggerTime
    updatedAt
  }
`);

export const JobQuery = graphql(`
  query Job($id: ID!) {
    job(id: $id) {
      ...JobFields
      app {
        id
        name
      }
    }
  }
`);

export const CreateJobMutation = graphql(`
  mutation CreateJob($input: JobInput!) {
    createJob(input: $input) {
      ...JobFields
    }
  }
`);

export const UpdateJobMutation = graphql(`
  mutation UpdateJob($id: ID!, $input: JobInput!) {
    updateJob(id: $id, input: $input) {
      ...JobFields
    }
  }
`);

export const SetJobEnabledMutation = graphql(`
  mutation SetJobEnabled($id: ID!, $enabled: Boolean!) {
    setJobEnabled(id: $id, enabled: $enabled) {
      ...JobRow
    }
  }
`);

export const DeleteJobMutation = graphql(`
  mutation DeleteJob($id: ID!) {
    deleteJob(id: $id)
  }
`);

export const RunJobMutation = graphql(`
  mutation RunJob($id: ID!, $params: String, $delayMs: Int, $idempotencyKey: String) {
    runJob(id: $id, params: $params, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {
      id
      status
    }
  }
`);

export const PreviewScheduleQuery = graphql(`
  query PreviewSchedule(
    $type: ScheduleType!
    $expression: String!
    $timeZone: String
    $count: Int
    $window: ScheduleWindowInput
    $app: String
    $calendar: String
  ) {
    previewSchedule(
      type: $type
      expression: $expression
      timeZone: $timeZone
      count: $count
      window: $window
      app: $app
      calendar: $calendar
    )
  }
`);

/** A job's overview: its definition, next fires, outcomes over a window and latest runs. */
export const JobOverviewQuery = graphql(`
  query JobOverview($id: ID!, $app: String!, $hours: Int, $runs: Int) {
    job(id: $id) {
      ...JobFields
      app {
        id
        name
      }
      upcoming(count: 5)
      stats(hours: $hours) {
        succeeded
        failed
        stopped
        canceled
        outcomes {
          start
          succeeded
          failed
          stopped
          canceled
        }
      }
    }
    instances(app: $app, jobId: $id, first: $runs) {
      edges {
        node {
          ...InstanceRow
        }
      }
      totalCount
    }
  }
`);

export const CalendarsQuery = graphql(`
  query Calendars($app: String!) {
    calendars(app: $app) {
      id
      name
      description
      dates
    }
  }
`);

export const JobVersionsQuery = graphql(`
  query JobVersions($id: ID!) {
    job(id: $id) {
      id
      version
      versions(first: 100) {
        version
        change
        author
        createdAt
        processor
        definition
      }
    }
  }
`);

export const RestoreJobVersionMutation = graphql(`
  mutation RestoreJobVersion($id: ID!, $version: Int!) {
    restoreJobVersion(id: $id, version: $version) {
      ...JobFields
    }
  }
`);

/** An entry of an alarm history (a job's or a workflow's). */
export const AlarmRecordFields = graphql(`
  fragment AlarmRecordFields on AlarmRecord {
    id
    time
    event
    rule
    outcome
    channel
    target
    statusCode
    answer
    attempts
    summary
    instanceId
    workflowInstanceId
  }
`);

/** A page of a job's alarm history. */
export const JobAlarmHistoryQuery = graphql(`
  query JobAlarmHistory($id: ID!, $first: Int, $after: String) {
    job(id: $id) {
      id
      alarmHistory(first: $first, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          cursor
          node {
            ...AlarmRecordFields
          }
        }
      }
    }
  }
`);

/** A test alarm to the channels of a job (`jobId`) or a workflow (`workflowId`): give one. */
export const SendTestAlarmMutation = graphql(`
  mutation SendTestAlarm($jobId: ID, $workflowId: ID) {
    sendTestAlarm(jobId: $jobId, workflowId: $workflowId) {
      channel
      target
      ok
      statusCode
      answer
    }
  }
`);
