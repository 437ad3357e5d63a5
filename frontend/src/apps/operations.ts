import { graphql } from "../graphql";

export const AppsQuery = graphql(`
  query Apps {
    apps {
      id
      name
      description
      createdAt
      myRole
    }
  }
`);

export const CreateAppMutation = graphql(`
  mutation CreateApp($name: String!, $description: String) {
    createApp(name: $name, description: $description) {
      app {
        id
        name
        description
        createdAt
        myRole
      }
      secret
    }
  }
`);
