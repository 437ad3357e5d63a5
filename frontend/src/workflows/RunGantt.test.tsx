import { act, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { WorkflowInstanceStatus, WorkflowNodeStatus, WorkflowRunFieldsFragment } from "../graphql/graphql";
import { locale } from "../i18n";
import { mockClient, renderRoutes, renderWithMantine } from "../test/render";
import { RunGantt } from "./RunGantt";
import { WorkflowRunPage } from "./WorkflowRunPage";

type Run = WorkflowRunFieldsFragment;
type Node = Run["nodes"][number];

/** A node that ran from `start` to `end` (seconds after 12:00:00 UTC), its job starting on a worker at `ranFrom`. */
function node(
  key: string,
  type: Node["type"],
  status: WorkflowNodeStatus,
  times: { start?: number; ranFrom?: number; end?: number } = {},
  name = "",
): Node {
  const at = (s: number | undefined) => (s === undefined ? null : new Date(Date.UTC(2026, 10, 21, 12, 0, s)).toISOString());
  return {
    key,
    type,
    name,
    status,
    reason: status === "SKIPPED" ? "BRANCH_NOT_TAKEN" : "",
    message: "",
    result: "",
    output: null,
    failureIgnored: false,
    generation: 1,
    items: 0,
    decidedBy: null,
    comment: "",
    deadline: null,
    startedTime: at(times.start),
    finishedTime: at(times.end),
    child: null,
    instances:
      times.ranFrom === undefined && type !== "JOB"
        ? []
        : [
            {
              id: `i-${key}`,
              status: "RUNNING",
              attempt: 1,
              startedTime: at(times.ranFrom),
              finishedTime: at(times.end),
              result: "",
              reason: "",
              params: "",
              workflowInput: null,
              worker: { id: "1", host: "w1" },
            },
          ],
  };
}

function run(status: WorkflowInstanceStatus, nodes: Node[], finished: string | null = null): Run {
  return {
    id: "5",
    status,
    reason: "",
    version: 1,
    triggerType: "API",
    triggerTime: "2026-11-21T12:00:00Z",
    startedTime: "2026-11-21T12:00:00Z",
    finishedTime: finished,
    parentNodeKey: null,
    workflow: { id: "3", name: "etl" },
    result: "",
    context: {},
    initialContext: {},
    createdAt: "2026-11-21T12:00:00Z",
    parent: null,
    edges: [
      { from: "extract", to: "check", label: null },
      { from: "check", to: "load", label: "true" },
      { from: "check", to: "report", label: "false" },
    ],
    // Out of dependency order: the chart sorts them.
    nodes,
  };
}

const clock = new Intl.DateTimeFormat(locale(), { hour: "2-digit", minute: "2-digit", second: "2-digit" });
/** 12:00:00 UTC + `s` seconds as the viewer reads it (their zone). */
const local = (s: number) => clock.format(new Date(Date.UTC(2026, 10, 21, 12, 0, s)));
const bar = (key: string) => screen.getByTestId(`gantt-bar-${key}`);

const finishedRun = run(
  "SUCCEEDED",
  [
    node("report", "JOB", "SKIPPED"),
    node("load", "JOB", "SUCCEEDED", { start: 11, ranFrom: 11, end: 20 }, "Load"),
    node("check", "DECISION", "SUCCEEDED", { start: 10, end: 11 }),
    node("extract", "JOB", "SUCCEEDED", { start: 0, ranFrom: 2, end: 10 }, "Extract"),
  ],
  "2026-11-21T12:00:20Z",
);

describe("the run's Gantt chart", () => {
  afterEach(() => vi.useRealTimers());

  it("draws each node's bar from its start to its end, its wait hatched, in topological order and the viewer's zone", () => {
    renderWithMantine(<RunGantt run={finishedRun} />);
    const rows = within(screen.getByRole("list", { name: "The nodes over time" })).getAllByRole("listitem");
    expect(rows.map((r) => r.firstChild?.textContent)).toEqual(["Extract", "check", "report", "Load"]);

    // 20 s in all: extract is the first half, 2 s of it waiting for a worker.
    expect(bar("extract").style.left).toBe("0%");
    expect(bar("extract").style.width).toBe("50%");
    expect(screen.getByTestId("gantt-wait-extract").style.width).toBe("20%");
    expect(bar("extract")).toHaveAccessibleName(`Extract: SUCCEEDED, waited 2.0 s, ran 8.0 s, ${local(0)} to ${local(10)}`);
    expect(bar("check").style.left).toBe("50%");
    expect(bar("check").style.width).toBe("5%");
    expect(screen.getByTestId("gantt-wait-check").style.width).toBe("0px");
    expect(bar("load").style.left).toBe("55%");
    expect(bar("load").style.width).toBe("45%");
    expect(bar("load")).toHaveAttribute("data-status", "SUCCEEDED");
    expect(bar("load")).not.toHaveAttribute("data-open");
    // A node that never started has no bar, and says why.
    expect(screen.queryByTestId("gantt-bar-report")).toBeNull();
    expect(screen.getByTestId("gantt-none-report")).toHaveTextContent("did not start (SKIPPED)");

    const zone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(screen.getByText(`Times in ${zone}`)).toBeInTheDocument();
    expect(screen.getAllByTestId("gantt-tick").map((t) => t.textContent)).toEqual([local(0), local(5), local(10), local(15), local(20)]);
    expect(within(screen.getByRole("list", { name: "What the colours mean" })).getByText("Waiting (for a worker, or an approval)")).toBeInTheDocument();
  });

  it("puts its times at least a second apart, so a short run's are not repeated", () => {
    renderWithMantine(
      <RunGantt run={run("SUCCEEDED", [node("extract", "JOB", "SUCCEEDED", { start: 0, ranFrom: 0, end: 2 })], "2026-11-21T12:00:02Z")} />,
    );
    expect(screen.getAllByTestId("gantt-tick").map((t) => t.textContent)).toEqual([local(0), local(1), local(2)]);
  });

  it("grows a running node's bar as time passes, without a push", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    vi.setSystemTime(new Date("2026-11-21T12:00:10Z"));
    renderWithMantine(
      <RunGantt
        run={run("RUNNING", [
          node("extract", "JOB", "SUCCEEDED", { start: 0, ranFrom: 1, end: 5 }),
          node("check", "DECISION", "SUCCEEDED", { start: 5, end: 5 }),
          node("load", "JOB", "RUNNING", { start: 5, ranFrom: 6 }),
          node("report", "JOB", "SKIPPED"),
        ])}
      />,
    );
    expect(bar("load")).toHaveAttribute("data-open", "true");
    expect(bar("load")).toHaveAttribute("data-end", String(Date.UTC(2026, 10, 21, 12, 0, 10)));
    expect(bar("load").style.width).toBe("50%");
    expect(bar("load")).toHaveAccessibleName(`load: RUNNING since ${local(5)}, waited 1.0 s, ran 4.0 s so far`);

    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(bar("load")).toHaveAttribute("data-end", String(Date.UTC(2026, 10, 21, 12, 0, 20)));
    expect(bar("load").style.width).toBe("75%");
    expect(bar("load")).toHaveAccessibleName(`load: RUNNING since ${local(5)}, waited 1.0 s, ran 14.0 s so far`);
    // What ended stays where it was; the axis reaches now.
    expect(bar("extract").style.width).toBe("25%");
    expect(screen.getAllByTestId("gantt-tick").at(-1)).toHaveTextContent(local(20));
  });

  it("counts an approval's time as waiting, and a job not yet on a worker as waiting", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    vi.setSystemTime(new Date("2026-11-21T12:00:10Z"));
    const waiting = node("load", "JOB", "RUNNING", { start: 5 });
    renderWithMantine(
      <RunGantt
        run={{
          ...run("RUNNING", [
            node("extract", "JOB", "SUCCEEDED", { start: 0, ranFrom: 0, end: 5 }),
            node("check", "APPROVAL", "AWAITING_APPROVAL", { start: 5 }),
            { ...waiting, instances: waiting.instances.map((i) => ({ ...i, status: "DISPATCHED" as const, startedTime: null })) },
          ]),
          edges: [
            { from: "extract", to: "check", label: null },
            { from: "extract", to: "load", label: null },
          ],
        }}
      />,
    );
    expect(screen.getByTestId("gantt-wait-check").style.width).toBe("100%");
    expect(screen.getByTestId("gantt-wait-load").style.width).toBe("100%");
    expect(screen.getByTestId("gantt-wait-extract").style.width).toBe("0px");
  });
});

describe("the run page's Gantt chart", () => {
  function setup(path: string) {
    const mock = mockClient({
      query: ({ name }) => (name === "WorkflowRun" ? { data: { workflowInstance: finishedRun }, error: undefined } : undefined),
    });
    renderRoutes([{ path: "/apps/:app/workflow-instances/:runId", Component: WorkflowRunPage }], path, mock.asClient);
  }

  it("opens with the node the grid's cell named chosen", async () => {
    setup("/apps/orders/workflow-instances/5?node=load");
    expect(await screen.findByRole("region", { name: "Node load" })).toBeInTheDocument();
    expect(screen.getByTestId("run-gantt")).toBeInTheDocument();
  });

  it("chooses a node by its bar", async () => {
    setup("/apps/orders/workflow-instances/5");
    await screen.findByTestId("run-gantt");
    expect(screen.queryByRole("region", { name: /^Node / })).toBeNull();
    await userEvent.click(bar("extract"));
    expect(await screen.findByRole("region", { name: "Node extract" })).toBeInTheDocument();
  });
});
