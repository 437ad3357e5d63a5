import { graphql } from "../graphql";

/**
 * The apps with their members. The API has no query for one app by name,
 * so the settings page reads them all and picks its own.
 */
export const AppSettingsQuery = graphql(`
  query AppSettings {
    apps {
      id
      name
      description
      createdAt
      myRole
      retentionDays
      members {
        userId
        username
        role
        admin
      }
    }
  }
`);

export const SetAppRoleMutation = graphql(`
  mutation SetAppRole($app: String!, $username: String!, $role: AppRole) {
    setAppRole(app: $app, username: $username, role: $role) {
      id
      myRole
      members {
        userId
        username
        role
        admin
      }
    }
  }
`);

export const RotateAppSecretMutation = graphql(`
  mutation RotateAppSecret($app: String!) {
    rotateAppSecret(app: $app) {
      app {
        id
        name
      }
      secret
    }
  }
`);

export const DeleteAppMutation = graphql(`
  mutation DeleteApp($app: String!) {
    deleteApp(app: $app)
  }
`);

export const SetAppRetentionMutation = graphql(`
  mutation SetAppRetention($app: String!, $days: Int) {
    setAppRetention(app: $app, days: $days) {
      id
      retentionDays
    }
  }
`);
