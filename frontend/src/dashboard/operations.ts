import { graphql } from "../graphql";

export const AppStatsQuery = graphql(`
  query AppStats($app: String!, $hours: Int) {
    appStats(app: $app, hours: $hours) {
      jobs
      enabledJobs
      waiting
      running
      succeeded
      failed
      workersAlive
      outcomes {
        start
        succeeded
        failed
        stopped
        canceled
      }
    }
  }
`);

/** What the on-call engineer needs first: failures, lag, next fires, capacity. */
export const OnCallQuery = graphql(`
  query OnCall($app: String!, $hours: Int) {
    appStats(app: $app, hours: $hours) {
      capacity {
        workers
        slots
        freeSlots
      }
      lag {
        samples
        triggerLateness {
          ...LatencySummaryFields
        }
        fireToStart {
          ...LatencySummaryFields
        }
        buckets {
          start
          triggerLateness {
            ...LatencySummaryFields
          }
          fireToStart {
            ...LatencySummaryFields
          }
        }
      }
      latestFailures(first: 10) {
        id
        reason
        result
        finishedTime
        job {
          id
          name
        }
      }
      nextFires(first: 10) {
        time
        job {
          id
          name
        }
      }
    }
  }
`);

export const LatencySummaryFragment = graphql(`
  fragment LatencySummaryFields on LatencySummary {
    count
    p50
    p99
    max
  }
`);
