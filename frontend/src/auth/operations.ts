import { graphql } from "../graphql";

export const MeQuery = graphql(`
  query Me {
    me {
      id
      username
      admin
      ssoSubject
    }
  }
`);

/** How people log in here; public, for the login page and the user menu. */
export const SignInOptionsQuery = graphql(`
  query SignInOptions {
    signInOptions {
      password
      sso {
        name
        loginUrl
      }
    }
  }
`);

// The token in the result is not asked for: the server also sets it as an
// HTTP-only cookie, which is all the console uses.
export const LoginMutation = graphql(`
  mutation Login($username: String!, $password: String!) {
    login(username: $username, password: $password) {
      expiresAt
      user {
        id
        username
      }
    }
  }
`);

export const LogoutMutation = graphql(`
  mutation Logout {
    logout
  }
`);
