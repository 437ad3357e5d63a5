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
