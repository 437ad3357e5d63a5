import { screen, within } from "@testing-library/react";
import type { AuditLogQuery } from "../graphql/graphql";
import { mockClient, renderRoutes } from "../test/render";
import { AuditPage } from "./AuditPage";

const routes = [{ path: "/apps/:app/audit", Component: AuditPage }];

const page: AuditLogQuery = {
  auditLog: {
    totalCount: 2,
    pageInfo: { hasNextPage: false, endCursor: "c2" },
    edges: [
      {
        node: {
          id: "2",
          time: "2026-11-24T03:00:00Z",
          actor: "vera",
          tokenName: null,
          clientAddress: "10.0.0.7",
          action: "setJobEnabled",
          objectType: "job",
          objectId: "7",
          objectName: "nightly",
          outcome: "FORBIDDEN",
          error: "forbidden: vera is a VIEWER of app orders",
          changes: [{ field: "arg.enabled", before: null, after: true }],
        },
      },
      {
        node: {
          id: "1",
          time: "2026-11-24T02:00:00Z",
          actor: "admin",
          tokenName: "deploy",
          clientAddress: null,
          action: "updateJob",
          objectType: "job",
          objectId: "7",
          objectName: "nightly",
          outcome: "OK",
          error: null,
          changes: [{ field: "timeoutMs", before: 0, after: 5000 }],
        },
      },
    ],
  },
};

describe("the audit page", () => {
  it("lists who changed what, with the changed fields and links to the object", async () => {
    const mock = mockClient({
      query: ({ name, variables }) => {
        if (name !== "AuditLog") return undefined;
        expect(variables).toMatchObject({ app: "orders", first: 50, after: null });
        return { data: page, error: undefined };
      },
    });
    renderRoutes(routes, "/apps/orders/audit", mock.asClient);
    const update = await screen.findByRole("row", { name: /updateJob/ });
    expect(within(update).getByText("token deploy")).toBeInTheDocument();
    expect(within(update).getByText(/0 →/)).toHaveTextContent("timeoutMs 0 → 5000");
    expect(within(update).getByRole("link", { name: "nightly" })).toHaveAttribute("href", "/apps/orders/jobs/7");
    const refused = screen.getByRole("row", { name: /setJobEnabled/ });
    expect(within(refused).getByText("FORBIDDEN")).toBeInTheDocument();
    expect(within(refused).getByText("vera")).toBeInTheDocument();
    // Why it was refused, as vera was told; a done change has no error.
    expect(within(refused).getByTestId("audit-error")).toHaveTextContent("forbidden: vera is a VIEWER of app orders");
    expect(within(update).queryByTestId("audit-error")).not.toBeInTheDocument();
  });
});
