import type { ReactNode } from "react";
import { MantineProvider } from "@mantine/core";
import { render } from "@testing-library/react";
import { Kind, type DocumentNode, type OperationDefinitionNode } from "graphql";
import { createMemoryRouter, RouterProvider, type RouteObject } from "react-router";
import { CombinedError, type Client, type OperationResult } from "urql";
import { concat, fromValue, never, pipe, take, toPromise, type Source } from "wonka";
import { ApiProvider } from "../api/ApiProvider";
import { theme } from "../theme";
import type { ErrorCode } from "../api/errors";
import type { Api } from "../api/client";
import type { LiveConnection } from "../api/live";
import type { AppRole, AppsQuery, MeQuery } from "../graphql/graphql";

type Result = Pick<OperationResult, "data" | "error">;

/** What a mock client is asked: the operation's name and variables. */
export interface MockRequest {
  name: string;
  variables: Record<string, unknown>;
}

/** A fixed answer, or one per request (undefined: no answer, ever). */
type Answer = Result | ((request: MockRequest) => Result | undefined);

interface MockClientResults {
  query?: Answer;
  mutation?: Answer;
  /** A subscription's stream (default: one that never sends). */
  subscription?: (request: MockRequest) => Source<Result> | undefined;
  /**
   * The caller's role on every app of the default app list: when `query` is
   * a function that does not answer "Apps" (or "Me"), the mock answers with
   * apps orders, billing and reports with this role (and an admin "me").
   */
  role?: AppRole;
}

/** The apps orders, billing and reports, with the caller's role on each. */
export function appsWithRole(role: AppRole | null, names = ["orders", "billing", "reports"]): AppsQuery {
  return {
    apps: names.map((name, i) => ({
      id: String(i + 1),
      name,
      description: "",
      createdAt: "2026-01-01T00:00:00Z",
      myRole: role,
    })),
  };
}

export const adminMe: MeQuery = { me: { id: "1", username: "admin", admin: true, ssoSubject: null } };

interface Request {
  query: DocumentNode;
  variables?: Record<string, unknown>;
}

/** The request's operation name and variables. */
export function requestOf(request: Request): MockRequest {
  const op = request.query.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return { name: op?.name?.value ?? "", variables: request.variables ?? {} };
}

function answer(given: Answer | undefined, request: Request, role: AppRole): Result | undefined {
  if (typeof given !== "function") return given;
  const asked = requestOf(request);
  const out = given(asked);
  if (out) return out;
  if (asked.name === "Apps") return { data: appsWithRole(role), error: undefined };
  if (asked.name === "Me") return { data: adminMe, error: undefined };
  return undefined;
}

/**
 * A stand-in for the urql client: queries answer `query`, mutations
 * `mutation` (either fixed, or a function of the request). The spies record
 * what was sent; `sent` lists it by operation name and variables.
 */
export function mockClient({ query, mutation, subscription, role = "OWNER" }: MockClientResults) {
  const client = {
    // A real client's query stream stays open for cache updates, and urql
    // clears a query's error when its stream ends.
    executeQuery: vi.fn((request: Request) => {
      const result = answer(query, request, role);
      return result ? concat([fromValue(result), never]) : never;
    }),
    executeMutation: vi.fn((request: Request) => {
      const result = answer(mutation, request, role);
      return result ? fromValue(result) : never;
    }),
    executeSubscription: vi.fn((request: Request) => subscription?.(requestOf(request)) ?? never),
    // client.query(…).toPromise(), for code that reads once rather than watches.
    query: vi.fn((query: DocumentNode, variables?: Record<string, unknown>) => ({
      toPromise: () => toPromise(pipe(client.executeQuery({ query, variables }), take(1))),
    })),
  };
  /** The queries sent so far with this operation name, oldest first. */
  const sent = (name: string) =>
    client.executeQuery.mock.calls.map(([r]) => requestOf(r)).filter((r) => r.name === name);
  /** The mutations sent so far with this operation name, oldest first. */
  const mutated = (name: string) =>
    client.executeMutation.mock.calls.map(([r]) => requestOf(r)).filter((r) => r.name === name);
  /** The subscriptions started so far with this operation name, oldest first. */
  const subscribed = (name: string) =>
    client.executeSubscription.mock.calls.map(([r]) => requestOf(r)).filter((r) => r.name === name);
  return { client, asClient: client as unknown as Client, sent, mutated, subscribed };
}

/** A GraphQL error as the server sends it. */
export function graphQLError(message: string, code: ErrorCode, field?: string): CombinedError {
  return new CombinedError({ graphQLErrors: [{ message, extensions: { code, ...(field ? { field } : {}) } }] });
}

function WithMantine({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={theme} env="test">
      {children}
    </MantineProvider>
  );
}

/** Renders a component with Mantine around it (no router, no client); rerender keeps it. */
export function renderWithMantine(ui: ReactNode) {
  return render(ui, { wrapper: WithMantine });
}

/** Renders routes at `path` with the providers the console has (`live`: the websocket's state). */
export function renderRoutes(routes: RouteObject[], path: string, client: Client, live?: LiveConnection) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const dispose = vi.fn<() => void>();
  const api: Api = { client, dispose, ...(live ? { live } : {}) };
  const create = vi.fn(() => api);
  render(
    <MantineProvider theme={theme} env="test">
      <ApiProvider create={create}>
        <RouterProvider router={router} />
      </ApiProvider>
    </MantineProvider>,
  );
  return { router, create, dispose };
}
