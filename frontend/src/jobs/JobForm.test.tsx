import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CombinedError } from "urql";
import type { CreateJobMutationVariables } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { NewJobPage } from "./JobFormPage";

// CodeMirror needs layout jsdom lacks; the browser test types into the real one.
vi.mock("./ScriptEditor", () => ({
  default: ({ value, onChange, labelledBy }: { value: string; onChange: (v: string) => void; labelledBy: string }) => (
    <textarea aria-labelledby={labelledBy} value={value} onChange={(e) => onChange(e.currentTarget.value)} />
  ),
}));

// A big form in jsdom is slow on a busy machine; this bounds a hang, not speed.
vi.setConfig({ testTimeout: 60_000 });

const routes = [
  { path: "/apps/:app/jobs/new", Component: NewJobPage },
  { path: "/apps/:app/jobs", element: <p>Jobs list</p> },
];

const fires = [
  "2026-11-22T00:05:00Z",
  "2026-11-22T00:10:00Z",
  "2026-11-22T00:15:00Z",
  "2026-11-22T00:20:00Z",
  "2026-11-22T00:25:00Z",
];

/** Answers previewSchedule like the server: five fires, or BAD_INPUT for a five-field cron. */
function previewAnswer({ name, variables }: MockRequest) {
  if (name !== "PreviewSchedule") return undefined;
  if (String(variables["expression"]).split(" ").length < 6) {
    return {
      data: undefined,
      error: graphQLError("expression: expected 6 or 7 fields but found 5", "BAD_INPUT", "expression"),
    };
  }
  return { data: { previewSchedule: fires }, error: undefined };
}

function savedJob(variables: CreateJobMutationVariables) {
  return { createJob: { id: "9", ...variables.input } };
}

/** Chooses an option of a Mantine Select by label. */
async function choose(user: ReturnType<typeof userEvent.setup>, label: string, option: string) {
  await user.click(screen.getByRole("textbox", { name: label }));
  await user.click(await screen.findByRole("option", { name: option }));
}

/** Puts text into a field at once (a paste), where typing it key by key tests nothing. */
async function fill(user: ReturnType<typeof userEvent.setup>, field: HTMLElement, text: string) {
  await user.click(field);
  await user.paste(text);
}

async function fillBasics(user: ReturnType<typeof userEvent.setup>, name: string) {
  await fill(user, await screen.findByRole("textbox", { name: /^Name/ }), name);
}

describe("the job form", () => {
  it("previews the next five fires once typing pauses, in the job's zone and UTC", async () => {
    // Keys without a pause between them, however busy the machine: a pause
    // over the debounce would rightly preview what was typed so far.
    const user = userEvent.setup({ delay: null });
    const { asClient, sent } = mockClient({ query: previewAnswer });
    renderRoutes(routes, "/apps/orders/jobs/new", asClient);

    const zone = screen.getByRole("textbox", { name: "Time zone" });
    await user.click(zone);
    await user.clear(zone);
    await user.type(zone, "Asia/Tokyo");
    await user.click(await screen.findByRole("option", { name: "Asia/Tokyo" }));
    await user.type(screen.getByRole("textbox", { name: /^Cron expression/ }), "0 0/5 * * * ?");

    const preview = await screen.findByRole("region", { name: "Next fires" });
    await waitFor(() => expect(within(preview).getAllByRole("row")).toHaveLength(6));
    expect(within(preview).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Asia/Tokyo", "UTC"]);
    const first = within(preview).getAllByRole("row")[1];
    if (!first) throw new Error("no first row");
    expect(within(first).getAllByRole("cell").map((c) => c.textContent)).toEqual([
      "Sun 2026-11-22 09:05:00",
      "Sun 2026-11-22 00:05:00",
    ]);
    // Asked once typing paused, not per keystroke.
    const asked = new Set(sent("PreviewSchedule").map((r) => JSON.stringify(r.variables)));
    expect([...asked].map((v) => JSON.parse(v) as unknown)).toEqual([
      { type: "CRON", expression: "0 0/5 * * * ?", timeZone: "Asia/Tokyo", count: 5, window: null, app: null, calendar: null },
    ]);
  });

  it("says the cron expression in words beside its fires as it is typed, and offers common schedules", async () => {
    const user = userEvent.setup();
    renderRoutes(routes, "/apps/orders/jobs/new", mockClient({ query: previewAnswer }).asClient);
    const expression = screen.getByRole("textbox", { name: /^Cron expression/ });
    await fill(user, expression, "0 0/5 * * * ?");
    const preview = await screen.findByRole("region", { name: "Next fires" });
    expect(await within(preview).findByTestId("cron-description")).toHaveTextContent("Every 5 minutes");

    await user.click(screen.getByRole("button", { name: "Common schedules" }));
    await user.click(await screen.findByRole("menuitem", { name: /Weekdays at 09:00/ }));
    // The form re-creates the field with the value picked.
    const picked = screen.getByRole("textbox", { name: /^Cron expression/ });
    expect(picked).toHaveValue("0 0 9 ? * MON-FRI");
    expect(within(preview).getByTestId("cron-description")).toHaveTextContent("At 09:00, Monday through Friday");
    await waitFor(() => expect(within(preview).getAllByRole("row")).toHaveLength(6));

    // An expression the server refuses is not described.
    await user.clear(picked);
    await fill(user, picked, "0 0/5 * * *");
    await waitFor(() => expect(picked).toHaveAttribute("aria-invalid", "true"));
    expect(within(preview).queryByTestId("cron-description")).not.toBeInTheDocument();
  });

  it("shows the server's objection to the expression at the expression, as it is typed", async () => {
    const user = userEvent.setup();
    renderRoutes(routes, "/apps/orders/jobs/new", mockClient({ query: previewAnswer }).asClient);

    const expression = screen.getByRole("textbox", { name: /^Cron expression/ });
    await user.type(expression, "0 0/5 * * *");
    await waitFor(() => expect(expression).toHaveAttribute("aria-invalid", "true"));
    expect(expression).toHaveAccessibleDescription(/expected 6 or 7 fields but found 5/);
    expect(screen.getByText("Fix the schedule to see when it fires.")).toBeInTheDocument();

    await user.type(expression, " ?");
    await waitFor(() => expect(expression).not.toHaveAttribute("aria-invalid", "true"));
    expect(await screen.findAllByRole("row")).toHaveLength(6);
  });

  it("shows BAD_INPUT errors from saving at the field they name", async () => {
    const user = userEvent.setup();
    const mock = mockClient({
      query: previewAnswer,
      mutation: {
        data: undefined,
        error: new CombinedError({
          graphQLErrors: [
            {
              message: "workerFilter.maxWorkers: 20 is more than this app may use",
              extensions: { code: "BAD_INPUT", field: "workerFilter.maxWorkers" },
            },
          ],
        }),
      },
    });
    renderRoutes(routes, "/apps/orders/jobs/new", mock.asClient);
    await fillBasics(user, "nightly");
    await choose(user, "Schedule type", "API only");
    await fill(user, screen.getByRole("textbox", { name: /Shell script/ }), "echo hi");
    const maxWorkers = screen.getByRole("textbox", { name: /^Max workers/ });
    await user.clear(maxWorkers);
    await user.type(maxWorkers, "20");
    await user.click(screen.getByRole("button", { name: "Create job" }));

    await waitFor(() => expect(maxWorkers).toHaveAttribute("aria-invalid", "true"));
    expect(maxWorkers).toHaveAccessibleDescription(/^20 is more than this app may use/);
    // The field's own name is not repeated in the message, and focus goes there.
    expect(maxWorkers).not.toHaveAccessibleDescription(/workerFilter/);
    expect(maxWorkers).toHaveFocus();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: /^Name/ })).not.toHaveAttribute("aria-invalid", "true");

    // Changing the field clears its error until the next save.
    await user.type(maxWorkers, "0");
    expect(maxWorkers).not.toHaveAttribute("aria-invalid", "true");
    expect(mock.mutated("CreateJob")[0]?.variables).toMatchObject({
      input: { app: "orders", name: "nightly", scheduleType: "API", workerFilter: { maxWorkers: 20 } },
    });
  });

  it("shows an error no field owns above the form", async () => {
    const user = userEvent.setup();
    const mock = mockClient({
      query: previewAnswer,
      mutation: { data: undefined, error: graphQLError("not allowed", "FORBIDDEN") },
    });
    renderRoutes(routes, "/apps/orders/jobs/new", mock.asClient);
    await fillBasics(user, "nightly");
    await choose(user, "Schedule type", "API only");
    await fill(user, screen.getByRole("textbox", { name: /Shell script/ }), "echo hi");
    await user.click(screen.getByRole("button", { name: "Create job" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Could not save the job");
    expect(alert).toHaveTextContent("not allowed");
  });

  it("sends an HTTP request's fields as the processor JSON the API expects, and its errors to the part named", async () => {
    const user = userEvent.setup();
    let fail = true;
    const mock = mockClient({
      query: previewAnswer,
      mutation: ({ variables }) =>
        fail
          ? {
              data: undefined,
              error: graphQLError('processor: url "ftp://x" is not an http(s) URL', "BAD_INPUT", "processor"),
            }
          : { data: savedJob(variables as CreateJobMutationVariables), error: undefined },
    });
    const { router } = renderRoutes(routes, "/apps/orders/jobs/new", mock.asClient);
    await fillBasics(user, "ping");
    await choose(user, "Schedule type", "API only");
    await choose(user, "Processor type", "HTTP request");

    await choose(user, "Method", "POST");
    await fill(user, screen.getByRole("textbox", { name: /^URL/ }), "ftp://x");
    await user.click(screen.getByRole("button", { name: "Add header" }));
    await fill(user, screen.getByRole("textbox", { name: "Header 1 name" }), "Authorization");
    await fill(user, screen.getByRole("textbox", { name: "Header 1 value" }), "Bearer t0k");
    await user.click(screen.getByRole("button", { name: "Add header" }));
    await fill(user, screen.getByRole("textbox", { name: "Header 2 name" }), "X-Empty");
    await user.click(screen.getByRole("button", { name: "Remove header 2" }));
    await fill(user, screen.getByRole("textbox", { name: "Body" }), '{"full":true}');
    await user.type(screen.getByRole("textbox", { name: /^Expected status/ }), "202");
    await user.click(screen.getByRole("button", { name: "Create job" }));

    const url = screen.getByRole("textbox", { name: /^URL/ });
    await waitFor(() => expect(url).toHaveAttribute("aria-invalid", "true"));
    expect(url).toHaveAccessibleDescription('url "ftp://x" is not an http(s) URL');

    fail = false;
    await user.clear(url);
    await fill(user, url, "https://example.com/hook");
    await user.click(screen.getByRole("button", { name: "Create job" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps/orders/jobs"));

    const sent = mock.mutated("CreateJob").at(-1)?.variables as CreateJobMutationVariables;
    expect(sent.input.processorType).toBe("HTTP");
    expect(JSON.parse(sent.input.processor)).toEqual({
      method: "POST",
      url: "https://example.com/hook",
      headers: { Authorization: "Bearer t0k" },
      body: '{"full":true}',
      expectStatus: 202,
    });
  });

  it("shows every field error of an empty form at once, and sends nothing", async () => {
    const user = userEvent.setup();
    const mock = mockClient({ query: previewAnswer });
    renderRoutes(routes, "/apps/orders/jobs/new", mock.asClient);
    await user.click(await screen.findByRole("button", { name: "Create job" }));

    const name = screen.getByRole("textbox", { name: /^Name/ });
    const expression = screen.getByRole("textbox", { name: /^Cron expression/ });
    await waitFor(() => expect(name).toHaveAttribute("aria-invalid", "true"));
    expect(name).toHaveAccessibleDescription(/^must not be empty/);
    expect(expression).toHaveAttribute("aria-invalid", "true");
    expect(expression).toHaveAccessibleDescription(/needs a Quartz cron expression/);
    // Its placeholder is an example, not a value refused: it keeps its colour.
    expect(expression).toHaveAttribute("placeholder", "0 0/5 * * * ?");
    expect(expression.style.getPropertyValue("--input-placeholder-color")).toBe("var(--mantine-color-placeholder)");
    expect(screen.getByText("a SHELL job needs the script to run")).toBeInTheDocument();
    // Focus goes to the first field in error.
    expect(name).toHaveFocus();
    expect(mock.mutated("CreateJob")).toHaveLength(0);
  });

  it("tells a script's author where the job's and the run's parameters arrive, and what else the script sees", async () => {
    const user = userEvent.setup();
    const mock = mockClient({ query: previewAnswer });
    renderRoutes(routes, "/apps/orders/jobs/new", mock.asClient);
    const params = await screen.findByRole("textbox", { name: /^Parameters/ });
    expect(params).toHaveAccessibleDescription(/\$JOBWHEEL_JOB_PARAMS \(\$1\).*\$JOBWHEEL_INSTANCE_PARAMS \(\$2\)/);
    await user.click(screen.getByText(/^What the script sees/));
    const variables = screen.getByRole("table", { name: "Variables a script sees" });
    for (const name of ["JOBWHEEL_JOB_PARAMS", "JOBWHEEL_INSTANCE_PARAMS", "JOBWHEEL_INSTANCE_ID", "JOBWHEEL_ATTEMPT"]) {
      expect(within(variables).getByRole("rowheader", { name })).toBeInTheDocument();
    }

    // A GO processor gets its parameters from its TaskContext, not a script's environment.
    await choose(user, "Processor type", "Go processor");
    expect(screen.queryByRole("table", { name: "Variables a script sees" })).not.toBeInTheDocument();
    expect(params).not.toHaveAccessibleDescription(/JOBWHEEL_JOB_PARAMS/);
  });

  it("keeps a number out of range as typed and says what is wrong with it, as the API would", async () => {
    const user = userEvent.setup();
    const mock = mockClient({ query: previewAnswer });
    renderRoutes(routes, "/apps/orders/jobs/new", mock.asClient);
    const timeout = await screen.findByRole("textbox", { name: /^Timeout/ });
    await user.clear(timeout);
    await user.type(timeout, "-5");
    const maxInstances = screen.getByRole("textbox", { name: /^Max instances/ });
    await user.clear(maxInstances);
    await user.type(maxInstances, "0");
    const retries = screen.getByRole("textbox", { name: /^Task retries/ });
    await user.clear(retries);
    await user.type(retries, "101");
    await user.tab();

    // Not clamped to 0, 1 and 100 behind the user's back.
    expect(timeout).toHaveValue("-5");
    expect(maxInstances).toHaveValue("0");
    expect(retries).toHaveValue("101");
    await waitFor(() => expect(timeout).toHaveAttribute("aria-invalid", "true"));
    expect(timeout).toHaveAccessibleDescription(/^-5 is negative; use 0 for no timeout/);
    expect(maxInstances).toHaveAccessibleDescription(/^0 is out of range 1 to 10000/);
    expect(retries).toHaveAccessibleDescription(/^101 is out of range 0 to 100/);

    await user.click(screen.getByRole("button", { name: "Create job" }));
    expect(mock.mutated("CreateJob")).toHaveLength(0);
  });

  it("sends the overlap policy, priority and retry back-off chosen", async () => {
    const user = userEvent.setup();
    const mock = mockClient({
      query: previewAnswer,
      mutation: ({ variables }) => ({ data: savedJob(variables as CreateJobMutationVariables), error: undefined }),
    });
    renderRoutes(routes, "/apps/orders/jobs/new", mock.asClient);
    await fillBasics(user, "sync");
    await choose(user, "Schedule type", "API only");
    await fill(user, screen.getByRole("textbox", { name: /Shell script/ }), "./sync.sh");
    await user.click(screen.getByRole("radio", { name: /^Queue/ }));
    for (const [label, value] of [
      [/^Max queued/, "3"],
      [/^Priority/, "5"],
      [/^Retry delay/, "2000"],
      [/^Retry back-off/, "2"],
    ] as const) {
      const field = screen.getByRole("textbox", { name: label });
      await user.clear(field);
      await user.type(field, value);
    }
    await user.click(screen.getByRole("button", { name: "Create job" }));

    await waitFor(() => expect(mock.mutated("CreateJob")).toHaveLength(1));
    expect(mock.mutated("CreateJob")[0]?.variables["input"]).toMatchObject({
      overlapPolicy: "QUEUE",
      maxQueued: 3,
      priority: 5,
      retryDelayMs: 2000,
      retryBackoff: 2,
      retryDelayMaxMs: 0,
    });
  });

  it("sends the alarm's rules (a late start among them) and the channels added, less one removed", async () => {
    const user = userEvent.setup();
    const mock = mockClient({
      query: previewAnswer,
      mutation: ({ variables }) => ({ data: savedJob(variables as CreateJobMutationVariables), error: undefined }),
    });
    renderRoutes(routes, "/apps/orders/jobs/new", mock.asClient);
    await fillBasics(user, "sync");
    await choose(user, "Schedule type", "API only");
    await fill(user, screen.getByRole("textbox", { name: /Shell script/ }), "./sync.sh");
    await user.click(screen.getByRole("checkbox", { name: "An instance fails" }));
    await user.click(screen.getByRole("checkbox", { name: "An instance starts late" }));
    for (const [i, target] of ["https://example.com/one", "https://example.com/two"].entries()) {
      await user.click(screen.getByRole("button", { name: "Add a channel" }));
      await fill(user, await screen.findByRole("textbox", { name: `Channel ${i + 1} URL or address` }), target);
    }
    await user.click(screen.getByRole("button", { name: "Remove channel 1" }));
    await waitFor(() => expect(screen.getAllByRole("textbox", { name: /^Channel \d+ URL or address$/ })).toHaveLength(1));
    expect(screen.getByRole("textbox", { name: "Channel 1 URL or address" })).toHaveValue("https://example.com/two");
    await user.click(screen.getByRole("button", { name: "Create job" }));

    await waitFor(() => expect(mock.mutated("CreateJob")).toHaveLength(1));
    expect(mock.mutated("CreateJob")[0]?.variables["input"]).toMatchObject({
      alarm: {
        rules: [
          { type: "FAILURE", threshold: null, silenceSec: 0 },
          { type: "START_LATE", threshold: 60_000, silenceSec: 0 },
        ],
        channels: [{ type: "WEBHOOK", target: "https://example.com/two" }],
      },
    });
  });

  it("shows every BAD_INPUT error of a failed save at its own field", async () => {
    const user = userEvent.setup();
    const mock = mockClient({
      query: previewAnswer,
      mutation: {
        data: undefined,
        error: new CombinedError({
          graphQLErrors: [
            { message: 'name: app "orders" already has a job named "nightly"', extensions: { code: "BAD_INPUT", field: "name" } },
            { message: "taskConcurrency: 3 is too many here", extensions: { code: "BAD_INPUT", field: "taskConcurrency" } },
          ],
        }),
      },
    });
    renderRoutes(routes, "/apps/orders/jobs/new", mock.asClient);
    await fillBasics(user, "nightly");
    await choose(user, "Schedule type", "API only");
    await fill(user, screen.getByRole("textbox", { name: /Shell script/ }), "echo hi");
    await user.click(screen.getByRole("button", { name: "Create job" }));

    const name = screen.getByRole("textbox", { name: /^Name/ });
    await waitFor(() => expect(name).toHaveAttribute("aria-invalid", "true"));
    expect(name).toHaveAccessibleDescription(/^app "orders" already has a job named "nightly"/);
    expect(screen.getByRole("textbox", { name: /^Task concurrency/ })).toHaveAccessibleDescription(/^3 is too many here/);
  });
});
