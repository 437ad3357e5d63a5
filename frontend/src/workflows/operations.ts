import { graphql } from "../graphql";

/** What the workflows list shows of a workflow. */
export const WorkflowRowFields = graphql(`
  fragment WorkflowRow on Workflow {
    id
    name
    description
    enabled
    scheduleType
    scheduleExpression
    timeZone
    version
    nextTriggerTime
    lastRun {
      id
      status
      triggerTime
    }
  }
`);

export const WorkflowsQuery = graphql(`
  query Workflows($app: String!, $first: Int, $after: String, $search: String) {
    workflows(app: $app, first: $first, after: $after, search: $search) {
      edges {
        cursor
        node {
          ...WorkflowRow
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

/** Every field of a workflow's current version, as the editor edits it. */
export const WorkflowFields = graphql(`
  fragment WorkflowFields on Workflow {
    id
    name
    description
    enabled
    scheduleType
    scheduleExpression
    timeZone
    maxInstances
    overlapPolicy
    misfirePolicy
    failFast
    version
    nextTriggerTime
    updatedAt
    managedBy
    managedSource
    nodes {
      key
      type
      name
      jobId
      workflowId
      expression
      params
      enabled
      skipWhenFailed
      triggerRule
      parallelism
      timeoutMs
      retries
      pool
      poolSlots
      position {
        x
        y
      }
    }
    edges {
      from
      to
      label
    }
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
  }
`);

export const WorkflowQuery = graphql(`
  query Workflow($id: ID!) {
    workflow(id: $id) {
      ...WorkflowFields
    }
  }
`);

export const WorkflowVersionsQuery = graphql(`
  query WorkflowVersions($id: ID!) {
    workflow(id: $id) {
      id
      version
      versions {
        version
        createdBy
        createdAt
        definition
      }
    }
  }
`);

/** A page of a workflow's alarm history (AlarmRecordFields: jobs/operations.ts). */
export const WorkflowAlarmHistoryQuery = graphql(`
  query WorkflowAlarmHistory($id: ID!, $first: Int, $after: String) {
    workflow(id: $id) {
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

/** The jobs and workflows a node can name. */
export const WorkflowChoicesQuery = graphql(`
  query WorkflowChoices($app: String!) {
    jobs(app: $app, first: 500) {
      edges {
        node {
          id
          name
        }
      }
    }
    workflows(app: $app, first: 500) {
      edges {
        node {
          id
          name
        }
      }
    }
    pools(app: $app) {
      id
      name
      slots
    }
  }
`);

export const CreateWorkflowMutation = graphql(`
  mutation CreateWorkflow($input: WorkflowInput!) {
    createWorkflow(input: $input) {
      ...WorkflowFields
    }
  }
`);

export const UpdateWorkflowMutation = graphql(`
  mutation UpdateWorkflow($id: ID!, $input: WorkflowInput!, $expectedVersion: Int) {
    updateWorkflow(id: $id, input: $input, expectedVersion: $expectedVersion) {
      ...WorkflowFields
    }
  }
`);

export const SetWorkflowEnabledMutation = graphql(`
  mutation SetWorkflowEnabled($id: ID!, $enabled: Boolean!) {
    setWorkflowEnabled(id: $id, enabled: $enabled) {
      ...WorkflowRow
    }
  }
`);

export const DeleteWorkflowMutation = graphql(`
  mutation DeleteWorkflow($id: ID!) {
    deleteWorkflow(id: $id)
  }
`);

export const RestoreWorkflowVersionMutation = graphql(`
  mutation RestoreWorkflowVersion($id: ID!, $version: Int!) {
    restoreWorkflowVersion(id: $id, version: $version) {
      ...WorkflowFields
    }
  }
`);

export const ExportWorkflowQuery = graphql(`
  query ExportWorkflow($id: ID!) {
    exportWorkflow(id: $id)
  }
`);

export const ImportWorkflowMutation = graphql(`
  mutation ImportWorkflow($app: String!, $definition: JSON!, $replace: Boolean) {
    importWorkflow(app: $app, definition: $definition, replace: $replace) {
      id
      name
    }
  }
`);

export const RunWorkflowMutation = graphql(`
  mutation RunWorkflow($id: ID!, $context: JSON, $delayMs: Int, $idempotencyKey: String) {
    runWorkflow(id: $id, context: $context, delayMs: $delayMs, idempotencyKey: $idempotencyKey) {
      id
      status
    }
  }
`);

/** What a runs list shows of a run. */
export const WorkflowRunRowFields = graphql(`
  fragment WorkflowRunRow on WorkflowInstance {
    id
    status
    reason
    version
    triggerType
    triggerTime
    startedTime
    finishedTime
    parentNodeKey
    workflow {
      id
      name
    }
  }
`);

export const WorkflowRunsQuery = graphql(`
  query WorkflowRuns($app: String!, $workflowId: ID, $status: [WorkflowInstanceStatus!], $first: Int, $after: String) {
    workflowInstances(app: $app, workflowId: $workflowId, status: $status, first: $first, after: $after) {
      edges {
        cursor
        node {
          ...WorkflowRunRow
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

/** Everything the run view shows of a run (each node's log is read on its own). */
export const WorkflowRunFields = graphql(`
  fragment WorkflowRunFields on WorkflowInstance {
    ...WorkflowRunRow
    result
    context
    initialContext
    createdAt
    parent {
      id
      workflow {
        id
        name
      }
    }
    edges {
      from
      to
      label
    }
    nodes {
      key
      type
      name
      status
      reason
      message
      result
      output
      failureIgnored
      generation
      items
      decidedBy
      comment
      deadline
      startedTime
      finishedTime
      child {
        id
        status
      }
      instances {
        id
        status
        attempt
        startedTime
        finishedTime
        result
        reason
        params
        workflowInput
        worker {
          id
          host
        }
      }
    }
  }
`);

export const WorkflowRunQuery = graphql(`
  query WorkflowRun($id: ID!) {
    workflowInstance(id: $id) {
      ...WorkflowRunFields
    }
  }
`);

export const WorkflowRunUpdatedSubscription = graphql(`
  subscription WorkflowRunUpdated($id: ID!) {
    workflowInstanceUpdated(id: $id) {
      ...WorkflowRunFields
    }
  }
`);

export const StopWorkflowRunMutation = graphql(`
  mutation StopWorkflowRun($id: ID!) {
    stopWorkflowInstance(id: $id) {
      ...WorkflowRunFields
    }
  }
`);

export const RetryWorkflowRunMutation = graphql(`
  mutation RetryWorkflowRun($id: ID!) {
    retryWorkflowInstance(id: $id) {
      ...WorkflowRunFields
    }
  }
`);

export const PauseWorkflowRunMutation = graphql(`
  mutation PauseWorkflowRun($id: ID!) {
    pauseWorkflowInstance(id: $id) {
      ...WorkflowRunFields
    }
  }
`);

export const ResumeWorkflowRunMutation = graphql(`
  mutation ResumeWorkflowRun($id: ID!) {
    resumeWorkflowInstance(id: $id) {
      ...WorkflowRunFields
    }
  }
`);

export const MarkWorkflowNodeSucceededMutation = graphql(`
  mutation MarkWorkflowNodeSucceeded($id: ID!, $node: String!) {
    markWorkflowNodeSucceeded(workflowInstanceId: $id, node: $node) {
      ...WorkflowRunFields
    }
  }
`);

export const RerunWorkflowNodeMutation = graphql(`
  mutation RerunWorkflowNode($id: ID!, $node: String!, $downstream: Boolean!) {
    rerunWorkflowNode(workflowInstanceId: $id, node: $node, downstream: $downstream) {
      ...WorkflowRunFields
    }
  }
`);

export const ApproveWorkflowNodeMutation = graphql(`
  mutation ApproveWorkflowNode($id: ID!, $node: String!, $approve: Boolean!, $comment: String) {
    approveWorkflowNode(workflowInstanceId: $id, node: $node, approve: $approve, comment: $comment) {
      ...WorkflowRunFields
    }
  }
`);

/** A run as the grid shows it: its state and each node's. */
export const WorkflowGridRunFields = graphql(`
  fragment WorkflowGridRun on WorkflowInstance {
    id
    status
    version
    triggerTime
    startedTime
    finishedTime
    parentNodeKey
    nodes {
      key
      name
      type
      status
      reason
      startedTime
      finishedTime
    }
  }
`);

/** A workflow's newest runs (nested ones too) with each node's state, for the grid. */
export const WorkflowGridQuery = graphql(`
  query WorkflowGrid($app: String!, $workflowId: ID!, $first: Int) {
    workflowInstances(app: $app, workflowId: $workflowId, first: $first) {
      edges {
        node {
          ...WorkflowGridRun
        }
      }
      totalCount
    }
  }
`);

/** That a run changed (the grid reads its runs afresh). */
export const WorkflowGridRunChangedSubscription = graphql(`
  subscription WorkflowGridRunChanged($id: ID!) {
    workflowInstanceUpdated(id: $id) {
      id
      status
    }
  }
`);

/** That an instance of the app changed (a new run's first node shows as one). */
export const WorkflowGridInstanceChangedSubscription = graphql(`
  subscription WorkflowGridInstanceChanged($app: String!) {
    instanceUpdated(app: $app) {
      id
      triggerType
    }
  }
`);
