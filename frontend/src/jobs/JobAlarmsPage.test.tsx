import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { mockClient, renderRoutes } from "../test/render";
import { JobAlarmsPage } from "./JobAlarmsPage";

vi.setConfig({ testTimeout: 60_000 });

const record = (id: string, event: string, outcome: string, extra: Record<string, unknown> = {}) => ({
  id,
  time: "2026-11-27T03:00:00Z",
  event,
  rule: "FAILURE",
  outcome,
  channel: "SLACK",
  target: "https://hooks.slack.com/…",
  statusCode: 200,
  answer: "ok",
  attempts: 1,
  summary: "[jobwheel] orders/nightly: instance 9 failed.",
  instanceId: "9",
  ...extra,
});

function setup(role: "EDITOR" | "VIEWER") {
  const mock = mockClient({
    role,
    query: ({ name }) => {
      if (name === "JobAlarmHistory")
        return {
          data: {
            job: {
              id: "7",
              alarmHistory: {
                totalCount: 3,
                pageInfo: { hasNextPage: false, endCursor: null },
                edges: [
                  { cursor: "c3", node: record("3", "instance.failed", "FAILED", { statusCode: 500, answer: "down", attempts: 3 }) },
                  { cursor: "c2", node: record("2", "instance.failed", "SILENCED", { channel: null, target: "", statusCode: null, summary: "silenced: the rule alarmed less than 1h0m0s ago" }) },
                  { cursor: "c1", node: record("1", "instance.failed", "SENT") },
                ],
              },
            },
          },
          error: undefined,
        };
      if (name === "Job")
        return {
          data: {
            job: {
              id: "7",
              name: "nightly",
              enabled: true,
              description: "",
              scheduleType: "CRON",
              managedBy: null,
              managedSource: null,
              app: { id: "1", name: "orders" },
              alarm: {
                rules: [{ type: "FAILURE", threshold: 0, silenceSec: 3600 }, { type: "RECOVERY", threshold: 0, silenceSec: 0 }],
                channels: [{ type: "SLACK", target: "https://hooks.slack.com/services/T/B/K" }],
              },
            },
          },
          error: undefined,
        };
      return undefined;
    },
    mutation: ({ name }) =>
      name === "SendTestAlarm"
        ? {
            data: {
              sendTestAlarm: [{ channel: "SLACK", target: "https://hooks.slack.com/…", ok: true, statusCode: 200, answer: "ok" }],
            },
            error: undefined,
          }
        : undefined,
  });
  renderRoutes([{ path: "/apps/:app/jobs/:jobId/alarms", Component: JobAlarmsPage }], "/apps/orders/jobs/7/alarms", mock.asClient);
  return mock;
}

describe("JobAlarmsPage", () => {
  it("shows the rules, channels and history, and sends a test alarm", async () => {
    const user = userEvent.setup();
    const mock = setup("EDITOR");
    const history = await screen.findByRole("table", { name: "Alarm history" });
    expect(within(history).getByText("SILENCED")).toBeInTheDocument();
    expect(within(history).getByText("down")).toBeInTheDocument();
    expect(within(history).getByText("3 attempts")).toBeInTheDocument();
    expect(screen.getByText("An instance fails; then quiet for 3600 s")).toBeInTheDocument();
    await user.click(await screen.findByRole("button", { name: "Send test alarm" }));
    expect(mock.mutated("SendTestAlarm")[0]?.variables).toEqual({ jobId: "7" });
    const answers = await screen.findByRole("table", { name: "Test alarm answers" });
    expect(within(answers).getByText("delivered")).toBeInTheDocument();
  });

  it("offers a VIEWER no test button", async () => {
    setup("VIEWER");
    await screen.findByRole("table", { name: "Alarm history" });
    expect(screen.queryByRole("button", { name: "Send test alarm" })).not.toBeInTheDocument();
  });
});
