import { graphql } from "../graphql";

export const ApiTokenFields = graphql(`
  fragment ApiTokenFields on ApiToken {
    id
    name
    app {
      id
      name
    }
    role
    user {
      id
      username
    }
    createdAt
    lastUsedAt
    revokedAt
  }
`);

export const ApiTokensQuery = graphql(`
  query ApiTokens {
    apiTokens {
      ...ApiTokenFields
    }
  }
`);

export const CreateApiTokenMutation = graphql(`
  mutation CreateApiToken($name: String!, $app: String, $role: AppRole) {
    createApiToken(name: $name, app: $app, role: $role) {
      token {
        ...ApiTokenFields
      }
      secret
    }
  }
`);

export const RevokeApiTokenMutation = graphql(`
  mutation RevokeApiToken($id: ID!) {
    revokeApiToken(id: $id)
  }
`);
