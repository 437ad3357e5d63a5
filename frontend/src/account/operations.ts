import { graphql } from "../graphql";

export const ChangePasswordMutation = graphql(`
  mutation ChangePassword($oldPassword: String!, $newPassword: String!) {
    changePassword(oldPassword: $oldPassword, newPassword: $newPassword)
  }
`);
