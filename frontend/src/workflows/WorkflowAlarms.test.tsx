import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { graphQLError, mockClient, renderRoutes } from "../test/render";
import { WorkflowPage } from "./WorkflowPage";

vi.setConfig({ testTimeout: 60_000 });

const workflow = {
  id: "3",
  name: "etl",
  description: "",
  enabled: true,
  scheduleType: "CRON",
  scheduleExpression: "0 2 * * *",
  timeZone: "UTC",
  maxInstances: 1,
  overlapPolicy: "CANCEL",
  misfirePolicy: "FIRE_ONCE",
  failFast: false,
  version: 4,
  nextTriggerTime: null,
  updatedAt: "2026-11-27T00:00:00Z",
  managedBy: null,
  managedSource: null,
  nodes: [
    {
      key: "extract",
      type: "JOB",
      name: "",
      jobId: "7",
      workflowId: null,
      expression: null,
      params: null,
      enabled: true,
      skipWhenFailed: false,
      triggerRule: "ALL_SUCCEEDED",
      parallelism: null,
      timeoutMs: null,
      retries: null,
      position: { x: 0, y: 0 },
    },
  ],
  edges: [],
  alarm: {
    rules: [{ type: "FAILURE", threshold: 0, silenceSec: 600 }],
    channels: [{ type: "SLACK", target: "https://hooks.slack.com/services/T/B/K" }],
  },
};

const history = {
  workflow: {
    id: "3",
    alarmHistory: {
      totalCount: 1,
      pageInfo: { hasNextPage: false, endCursor: null },
      edges: [
        {
          cursor: "c1",
          node: {
            id: "1",
            time: "2026-11-27T03:00:00Z",
            event: "workflow_instance.failed",
            rule: "FAILURE",
            outcome: "SENT",
            channel: "SLACK",
            target: "https://hooks.slack.com/…",
            statusCode: 200,
            answer: "ok",
            attempts: 1,
            summary: "[jobwheel] orders/etl: run 12 failed.",
            instanceId: null,
            workflowInstanceId: "12",
          },
        },
      ],
    },
  },
};

function setup(role: "EDITOR" | "VIEWER", saveError?: ReturnType<typeof graphQLError>) {
  const mock = mockClient({
    role,
    query: ({ name }) => {
      if (name === "Workflow") return { data: { workflow }, error: undefined };
      if (name === "WorkflowAlarmHistory") return { data: history, error: undefined };
      return undefined;
    },
    mutation: ({ name }) => {
      if (name === "SendTestAlarm")
        return {
          data: {
            sendTestAlarm: [
              { channel: "SLACK", target: "https://hooks.slack.com", ok: true, statusCode: 200, answer: "ok" },
              { channel: "EMAIL", target: "ops@example.com", ok: false, statusCode: null, answer: "550 no such user" },
            ],
          },
          error: undefined,
        };
      if (name === "UpdateWorkflow")
        return saveError
          ? { data: undefined, error: saveError }
          : { data: { updateWorkflow: { ...workflow, version: 5 } }, error: undefined };
      return undefined;
    },
  });
  renderRoutes([{ path: "/apps/:app/workflows/:workflowId", Component: WorkflowPage }], "/apps/orders/workflows/3?tab=alarms", mock.asClient);
  return mock;
}

describe("a workflow's Alarms tab", () => {
  it("offers the workflow's rules only, and saves the edited rules and channels with the definition", async () => {
    const user = userEvent.setup();
    const mock = setup("EDITOR");
    const failure = await screen.findByRole("checkbox", { name: "A run fails" });
    expect(failure).toBeChecked();
    // START_LATE is for jobs: the server refuses it for a workflow.
    expect(screen.queryByRole("checkbox", { name: "An instance starts late" })).not.toBeInTheDocument();
    expect(screen.getAllByRole("checkbox")).toHaveLength(4);

    await user.click(screen.getByRole("checkbox", { name: "N runs in a row fail" }));
    const n = await screen.findByRole("textbox", { name: "N (failures in a row)" });
    await user.clear(n);
    await user.type(n, "5");
    await user.click(screen.getByRole("checkbox", { name: "It recovers (first success after an alarm)" }));
    await user.click(screen.getByRole("button", { name: "Add a channel" }));
    await user.type(await screen.findByRole("textbox", { name: "Channel 2 URL or address" }), "https://example.com/hook");
    await user.click(screen.getByRole("button", { name: "Save alarm" }));

    await waitFor(() => expect(mock.mutated("UpdateWorkflow")).toHaveLength(1));
    const vars = mock.mutated("UpdateWorkflow")[0]?.variables as {
      id: string;
      expectedVersion: number;
      input: Record<string, unknown>;
    };
    expect(vars.id).toBe("3");
    expect(vars.expectedVersion).toBe(4);
    expect(vars.input).toMatchObject({ app: "orders", name: "etl", scheduleExpression: "0 2 * * *" });
    expect(vars.input["nodes"]).toEqual([expect.objectContaining({ key: "extract", jobId: "7" })]);
    expect(vars.input["alarm"]).toEqual({
      rules: [
        { type: "FAILURE", threshold: null, silenceSec: 600 },
        { type: "CONSECUTIVE_FAILURES", threshold: 5, silenceSec: 0 },
        { type: "RECOVERY", threshold: null, silenceSec: 0 },
      ],
      channels: [
        { type: "SLACK", target: "https://hooks.slack.com/services/T/B/K" },
        { type: "WEBHOOK", target: "https://example.com/hook" },
      ],
    });
  });

  it("adds and removes channels, each row keeping its own value", async () => {
    const user = userEvent.setup();
    const mock = setup("EDITOR");
    await user.click(await screen.findByRole("button", { name: "Add a channel" }));
    await user.type(await screen.findByRole("textbox", { name: "Channel 2 URL or address" }), "https://example.com/two");
    await user.click(screen.getByRole("button", { name: "Add a channel" }));
    await user.type(await screen.findByRole("textbox", { name: "Channel 3 URL or address" }), "https://example.com/three");
    await user.click(screen.getByRole("button", { name: "Remove channel 1" }));
    await waitFor(() => expect(screen.queryByRole("textbox", { name: "Channel 3 URL or address" })).not.toBeInTheDocument());
    expect(screen.getByRole("textbox", { name: "Channel 1 URL or address" })).toHaveValue("https://example.com/two");
    expect(screen.getByRole("textbox", { name: "Channel 2 URL or address" })).toHaveValue("https://example.com/three");
    await user.click(screen.getByRole("button", { name: "Save alarm" }));
    await waitFor(() => expect(mock.mutated("UpdateWorkflow")).toHaveLength(1));
    const vars = mock.mutated("UpdateWorkflow")[0]?.variables as { input: { alarm: { channels: unknown[] } } };
    expect(vars.input.alarm.channels).toEqual([
      { type: "WEBHOOK", target: "https://example.com/two" },
      { type: "WEBHOOK", target: "https://example.com/three" },
    ]);
  });

  it("checks the form before saving, and shows the server's error at its field", async () => {
    const user = userEvent.setup();
    const mock = setup("EDITOR", graphQLError('alarm.channels[0].target: "https://10.0.0.1/" is not allowed', "BAD_INPUT", "alarm.channels[0].target"));
    await user.click(await screen.findByRole("checkbox", { name: "A run fails" }));
    await user.click(screen.getByRole("checkbox", { name: "It recovers (first success after an alarm)" }));
    await user.click(screen.getByRole("button", { name: "Save alarm" }));
    expect(await screen.findByText("follows an alarm of a failure rule: switch one on too")).toBeInTheDocument();
    expect(mock.mutated("UpdateWorkflow")).toHaveLength(0);

    await user.click(screen.getByRole("checkbox", { name: "A run times out" }));
    await user.click(screen.getByRole("button", { name: "Save alarm" }));
    await waitFor(() => expect(mock.mutated("UpdateWorkflow")).toHaveLength(1));
    expect(await screen.findByText('"https://10.0.0.1/" is not allowed')).toBeInTheDocument();
  });

  it("sends a test alarm and shows each channel's answer, and lists the history", async () => {
    const user = userEvent.setup();
    const mock = setup("EDITOR");
    const table = await screen.findByRole("table", { name: "Alarm history" });
    expect(within(table).getByText("workflow_instance.failed")).toBeInTheDocument();
    expect(within(table).getByRole("link", { name: "run 12" })).toHaveAttribute("href", "/apps/orders/workflow-instances/12");

    await user.click(screen.getByRole("button", { name: "Send test alarm" }));
    expect(mock.mutated("SendTestAlarm")[0]?.variables).toEqual({ workflowId: "3" });
    const answers = await screen.findByRole("table", { name: "Test alarm answers" });
    expect(within(answers).getByText("delivered")).toBeInTheDocument();
    expect(within(answers).getByText("failed")).toBeInTheDocument();
    expect(within(answers).getByText("550 no such user")).toBeInTheDocument();
  });

  it("shows a VIEWER the settings and history, and no editing control", async () => {
    setup("VIEWER");
    await screen.findByRole("table", { name: "Alarm history" });
    expect(screen.getByText("A run fails; then quiet for 600 s")).toBeInTheDocument();
    // The chat URL's key is not shown.
    expect(screen.getByText("Slack: https://hooks.slack.com/…")).toBeInTheDocument();
    expect(screen.queryByRole("checkbox")).not.toBeInTheDocument();
    expect(screen.queryByRole("textbox")).not.toBeInTheDocument();
    for (const name of ["Save alarm", "Add a channel", "Send test alarm"]) {
      expect(screen.queryByRole("button", { name })).not.toBeInTheDocument();
    }
  });
});
