import { graphql } from "../graphql";

export const AuditLogQuery = graphql(`
  query AuditLog($app: String!, $first: Int!, $after: String) {
    auditLog(app: $app, first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...AuditRow
        }
      }
    }
  }
`);

export const AuditRowFragment = graphql(`
  fragment AuditRow on AuditEntry {
    id
    time
    actor
    tokenName
    clientAddress
    action
    objectType
    objectId
    objectName
    outcome
    error
    changes {
      field
      before
      after
    }
  }
`);
