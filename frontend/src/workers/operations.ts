import { graphql } from "../graphql";

export const WorkersQuery = graphql(`
  query Workers($app: String!) {
    workers(app: $app) {
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
  }
`);
