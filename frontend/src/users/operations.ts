import { graphql } from "../graphql";

export const UsersQuery = graphql(`
  query Users {
    users {
      id
      username
      admin
      createdAt
    }
  }
`);

export const CreateUserMutation = graphql(`
  mutation CreateUser($username: String!, $password: String!, $admin: Boolean) {
    createUser(username: $username, password: $password, admin: $admin) {
      id
      username
      admin
      createdAt
    }
  }
`);
