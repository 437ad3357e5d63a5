import { graphql } from "../graphql";

export const WorkersQuery = graphql(`
  query Workers($app: String!) {
    workers(app: $app) {
      ...WorkerRow
    }
  }
`);

/** The app's worker listing, pushed each time it changes. */
export const WorkersUpdatedSubscription = graphql(`
  subscription WorkersUpdated($app: String!) {
    workersUpdated(app: $app) {
      ...WorkerRow
    }
  }
`);

export const WorkerRowFragment = graphql(`
  fragment WorkerRow on Worker {
    id
    host
    tags
    processors
    slots
    metrics {
      cpuCores
      load1
      freeMemoryMB
      freeDiskMB
    }
    connectedAt
    lastHeartbeat
    alive
    health
  }
`);
