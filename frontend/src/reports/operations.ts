import { graphql } from "../graphql";

export const RunReportQuery = graphql(`
  query RunReport($app: String, $from: Time!, $to: Time!, $timeZone: String) {
    runReport(app: $app, from: $from, to: $to, timeZone: $timeZone) {
      from
      to
      timeZone
      days {
        date
        start
        runs
        succeeded
        failed
        stopped
        canceled
      }
      rows {
        date
        job {
          id
          name
          app {
            id
            name
          }
        }
        runs
        succeeded
        failed
        stopped
        canceled
        durationP50Ms
        durationP95Ms
        durationMaxMs
      }
    }
  }
`);

export const AppsOverviewQuery = graphql(`
  query AppsOverview($timeZone: String) {
    appsOverview(timeZone: $timeZone) {
      app {
        id
        name
        description
      }
      jobs
      runsToday
      failuresToday
      runningNow
      workersOnline
    }
  }
`);
