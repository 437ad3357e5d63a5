import { screen, waitFor } from "@testing-library/react";
import { routes } from "../routes";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";

// Issue 11, item 12: the explorer is part of the console and behind its
// login. A visitor without a session who opens /graphiql is sent to log in
// (and back afterwards); the explorer is not rendered, so its code is not
// even loaded.
describe("the GraphQL explorer", () => {
  it.each([
    ["the server says UNAUTHENTICATED", { data: undefined, error: graphQLError("log in first", "UNAUTHENTICATED") }],
    ["there is no user", { data: { me: null }, error: undefined }],
  ])("is not shown to a visitor without a session (%s)", async (_, me) => {
    const client = mockClient({ query: ({ name }: MockRequest) => (name === "Me" ? me : undefined) }).asClient;
    const { router } = renderRoutes(routes, "/graphiql", client);
    await waitFor(() => expect(router.state.location.pathname).toBe("/login"));
    expect(router.state.location.search).toBe("?next=%2Fgraphiql");
    expect(screen.queryByTestId("graphiql")).not.toBeInTheDocument();
  });
});
