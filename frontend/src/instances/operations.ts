import { graphql } from "../graphql";

/** What the instances list shows of an instance. */
export const InstanceRowFields = graphql(`
  fragment InstanceRow on Instance {
    id
    status
    triggerType
    expectedTriggerTime
    actualTriggerTime
    startedTime
    finishedTime
    attempt
    job {
      id
      name
    }
    worker {
      id
      host
    }
  }
`);

export const InstancesQuery = graphql(`
  query Instances(
    $app: String!
    $jobId: ID
    $status: [InstanceStatus!]
    $from: Time
    $to: Time
    $first: Int
    $after: String
  ) {
    instances(app: $app, jobId: $jobId, status: $status, from: $from, to: $to, first: $first, after: $after) {
      edges {
        cursor
        node {
          ...InstanceRow
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
      totalCount
    }
  }
`);

/** The jobs a filter can choose from. */
export const JobChoicesQuery = graphql(`
  query JobChoices($app: String!, $first: Int) {
    jobs(app: $app, first: $first) {
      edges {
        node {
          id
          name
        }
      }
    }
  }
`);

/** Everything the instance page shows but its log. */
export const InstanceFields = graphql(`
  fragment InstanceFields on Instance {
    ...InstanceRow
    traceId
    params
    result
    reason
    nextAttemptAt
    job {
      id
      executionMode
    }
    worker {
      id
      host
      alive
      health
      lastHeartbeat
    }
    attempts {
      attempt
      status
      worker
      result
      reason
      startedTime
      finishedTime
    }
    tasks {
      total
      waiting
      running
      succeeded
      failed
      stopped
    }
    unqualifiedAt
    unqualifiedWorkers {
      worker
      host
      filter
      reason
    }
  }
`);

export const InstanceQuery = graphql(`
  query Instance($id: ID!) {
    instance(id: $id) {
      ...InstanceFields
    }
    traceUrlTemplate
  }
`);

export const InstanceLogsQuery = graphql(`
  query InstanceLogs($id: ID!, $afterSeq: Int, $first: Int) {
    instance(id: $id) {
      id
      logs(afterSeq: $afterSeq, first: $first) {
        lines {
          seq
          time
          level
          worker
          text
          attempt
        }
        hasMore
      }
    }
  }
`);

export const StopInstanceMutation = graphql(`
  mutation StopInstance($id: ID!) {
    stopInstance(id: $id) {
      ...InstanceFields
    }
  }
`);

export const RetryInstanceMutation = graphql(`
  mutation RetryInstance($id: ID!) {
    retryInstance(id: $id) {
      ...InstanceFields
    }
  }
`);

/** An instance's log lines after afterSeq: those stored, then new ones live. */
export const InstanceLogLinesSubscription = graphql(`
  subscription InstanceLogLines($instanceId: ID!, $afterSeq: Int) {
    instanceLogs(instanceId: $instanceId, afterSeq: $afterSeq) {
      seq
      time
      level
      worker
      text
      attempt
    }
  }
`);

/**
 * The app's instances (of one job) as they change. Screens read what they
 * show afresh on a change, so the stream carries only what tells which.
 */
export const InstanceChangesSubscription = graphql(`
  subscription InstanceChanges($app: String!, $jobId: ID) {
    instanceUpdated(app: $app, jobId: $jobId) {
      id
      status
    }
  }
`);

/**
 * The app's instances (of one job) as they change, with what a screen of
 * one instance shows straight from the push, before it reads the rest
 * afresh: where it is in its life, its attempt, who runs it and since when.
 */
export const InstanceLiveChangesSubscription = graphql(`
  subscription InstanceLiveChanges($app: String!, $jobId: ID) {
    instanceUpdated(app: $app, jobId: $jobId) {
      id
      status
      attempt
      reason
      startedTime
      finishedTime
      worker {
        id
        host
        alive
        health
        lastHeartbeat
      }
    }
  }
`);

/** An instance's task counts by status, re-read while it runs (tasks progress without the instance changing). */
export const InstanceTaskSummaryQuery = graphql(`
  query InstanceTaskSummary($id: ID!) {
    instance(id: $id) {
      id
      status
      tasks {
        total
        waiting
        running
        succeeded
        failed
        stopped
      }
    }
  }
`);

/** What the tasks table shows of a task. */
export const TaskRowFields = graphql(`
  fragment TaskRow on Task {
    id
    name
    kind
    status
    workerId
    attempt
    createdTime
    finishedTime
    nextAttemptAt
  }
`);

/**
 * A page of an instance's tasks. No totalCount: counting a big instance's
 * tasks is what the summary already does, so the table takes its counts
 * from there rather than counting again on every page.
 */
export const InstanceTasksQuery = graphql(`
  query InstanceTasks($id: ID!, $status: [TaskStatus!], $first: Int, $after: String) {
    instance(id: $id) {
      id
      taskList(status: $status, first: $first, after: $after) {
        edges {
          cursor
          node {
            ...TaskRow
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`);

/** One task, for its drawer. */
export const InstanceTaskQuery = graphql(`
  query InstanceTask($id: ID!, $taskId: ID!) {
    instance(id: $id) {
      id
      task(id: $taskId) {
        ...TaskRow
        parentId
        payload
        payloadSize
        result
        resultSize
        instanceAttempt
        dispatchedTime
        updatedTime
        worker {
          id
          host
          alive
        }
      }
    }
  }
`);
