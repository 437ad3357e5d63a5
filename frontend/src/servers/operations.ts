import { graphql } from "../graphql";

export const ServersQuery = graphql(`
  query Servers {
    servers {
      id
      advertiseUrl
      alive
      startedAt
      heartbeatAt
      version
    }
  }
`);
