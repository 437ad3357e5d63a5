// Browser test of the workflow grid and the run's Gantt chart (issue 26,
// item 17), against a running server whose app (APP) has a live agent
// running SHELL scripts: a 4-node workflow (extract → transform → load,
// extract → report) that ran once shows on its Runs tab as a grid of runs ×
// nodes in topological order; a second run started through the API appears
// as a new column without a reload, its transform cell RUNNING while its
// script waits, then every cell SUCCEEDED; a cell opens that run with its
// node chosen; the run's Gantt chart has a bar per node, in the viewer's
// zone (the browser runs in Europe/Berlin); a third run's running bar grows
// while the page is open, and stops growing once the node ends.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { adminPassword, api, app, createShellJob, logIn, shot, suffix, useBrowser, waitUntil } from "./lib.mjs";

const browser = useBrowser({ viewport: { width: 1440, height: 900 } });
const keys = ["extract", "transform", "load", "report"];
const gates = [join(tmpdir(), `jobwheel-grid-gate-${suffix}-2`), join(tmpdir(), `jobwheel-grid-gate-${suffix}-3`)];
let admin;
let workflowId = "";
const runs = [];

// transform waits for the file its run's context names as "gate" (none: it
// does not wait); the agent runs on this machine, so the test creates it.
const transformScript = `gate=$(sed -n 's/.*"gate": *"\\([^"]*\\)".*/\\1/p' "$JOBWHEEL_WORKFLOW_CONTEXT")
if [ -n "$gate" ]; then while [ ! -e "$gate" ]; do sleep 0.1; done; fi
echo transformed`;

before(async () => {
  admin = await api("admin", adminPassword);
  const jobs = {};
  for (const key of keys) {
    jobs[key] = await createShellJob(admin, `grid-${key}-${suffix}`, key === "transform" ? transformScript : `echo ${key}`);
  }
  const { createWorkflow } = await admin(`mutation($input: WorkflowInput!) { createWorkflow(input: $input) { id } }`, {
    input: {
      app,
      name: `grid-flow-${suffix}`,
      scheduleType: "API",
      maxInstances: 5,
      // Listed out of dependency order: the grid and the chart sort them.
      nodes: [
        { key: "load", type: "JOB", jobId: jobs.load, name: "Load" },
        { key: "report", type: "JOB", jobId: jobs.report },
        { key: "transform", type: "JOB", jobId: jobs.transform },
        { key: "extract", type: "JOB", jobId: jobs.extract, name: "Extract" },
      ],
      edges: [
        { from: "extract", to: "transform" },
        { from: "transform", to: "load" },
        { from: "extract", to: "report" },
      ],
    },
  });
  workflowId = createWorkflow.id;
  runs.push(await runWorkflow({}));
  await waitRun(runs[0], "SUCCEEDED");
});

after(() => {
  for (const g of gates) rmSync(g, { force: true });
});

async function runWorkflow(context) {
  const { runWorkflow } = await admin(`mutation($id: ID!, $context: JSON) { runWorkflow(id: $id, context: $context) { id } }`, {
    id: workflowId,
    context,
  });
  return runWorkflow.id;
}

async function readRun(id) {
  const { workflowInstance } = await admin(
    `query($id: ID!) { workflowInstance(id: $id) { status nodes { key status startedTime finishedTime } } }`,
    { id },
  );
  return workflowInstance;
}

async function waitRun(id, status) {
  await waitUntil(async () => (await readRun(id)).status === status, 60_000);
}

const cell = (page, run, key) => page.getByTestId(`grid-cell-${run}-${key}`);

async function waitCell(page, run, key, status) {
  await page.locator(`[data-testid="grid-cell-${run}-${key}"][data-status="${status}"]`).waitFor({ timeout: 60_000 });
}

/** A time of day as the console shows it to a viewer in Berlin (spaces normalised: ICU versions differ). */
function berlin(iso) {
  return new Intl.DateTimeFormat("en", { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone: "Europe/Berlin" })
    .format(new Date(iso))
    .replace(/\s/g, " ");
}

test("the grid shows runs × nodes in topological order and follows a new run live", async () => {
  const { page } = browser;
  await page.goto("/login");
  await logIn(page, "admin", adminPassword);
  await page.goto(`/apps/${app}/workflows/${workflowId}?tab=runs`);
  const grid = page.getByRole("table", { name: "Each node's state in the newest runs" });
  await grid.waitFor();
  const rows = await grid.getByRole("rowheader").allInnerTexts();
  assert.deepEqual(
    rows.map((r) => r.replace(/\s+/g, "")),
    // extract first; then its successors in the definition's order (report is listed before transform).
    ["Extractextract", "report", "transform", "Loadload"],
  );
  for (const key of keys) await waitCell(page, runs[0], key, "SUCCEEDED");
  assert.equal(await cell(page, runs[0], "extract").getAttribute("aria-label"), `Extract in run #${runs[0]}: SUCCEEDED`);
  await page.getByRole("list", { name: "What the colours mean" }).getByText("AWAITING_APPROVAL").waitFor();

  // A run started elsewhere shows as a new column, its nodes changing live.
  runs.push(await runWorkflow({ gate: gates[0] }));
  await waitCell(page, runs[1], "transform", "RUNNING");
  await waitCell(page, runs[1], "extract", "SUCCEEDED");
  assert.equal(await cell(page, runs[1], "load").getAttribute("data-status"), "WAITING");
  assert.deepEqual(await grid.getByRole("columnheader").allInnerTexts().then((h) => h.slice(1)), [`#${runs[0]}`, `#${runs[1]}`]);
  // The runs list under the grid follows it.
  await page.getByTestId("runs-total").getByText("2 runs").waitFor();
  await shot(browser, "grid-running");

  writeFileSync(gates[0], "");
  for (const key of keys) await waitCell(page, runs[1], key, "SUCCEEDED");
  await page.locator(`[data-testid="grid-run-${runs[1]}"][data-status="SUCCEEDED"]`).waitFor({ timeout: 60_000 });
  await shot(browser, "grid-succeeded");
});

test("a cell opens its run at that node, whose Gantt chart draws each node in the viewer's zone", async () => {
  const { page } = browser;
  await cell(page, runs[1], "transform").click();
  await page.waitForURL(new RegExp(`/apps/${app}/workflow-instances/${runs[1]}\\?node=transform$`));
  await page.getByRole("region", { name: "Node transform" }).waitFor();
  const gantt = page.getByTestId("run-gantt");
  await gantt.getByText("Times in Europe/Berlin").waitFor();
  const run = await readRun(runs[1]);
  for (const n of run.nodes) {
    const bar = page.getByTestId(`gantt-bar-${n.key}`);
    await bar.waitFor();
    assert.equal(await bar.getAttribute("data-status"), "SUCCEEDED");
    // The bar spans the node's own times, as the viewer's clock reads them.
    assert.equal(Number(await bar.getAttribute("data-start")), Date.parse(n.startedTime));
    assert.equal(Number(await bar.getAttribute("data-end")), Date.parse(n.finishedTime));
    const label = (await bar.getAttribute("aria-label")).replace(/\s/g, " ");
    assert.ok(label.endsWith(`${berlin(n.startedTime)} to ${berlin(n.finishedTime)}`), `${n.key}: ${label}`);
  }
  // Rows in topological order, as in the grid.
  const order = await gantt.getByRole("list", { name: "The nodes over time" }).getByRole("listitem").evaluateAll((items) =>
    items.map((li) => li.querySelector("[data-testid^=gantt-bar-]")?.getAttribute("data-testid")),
  );
  assert.deepEqual(order, ["gantt-bar-extract", "gantt-bar-report", "gantt-bar-transform", "gantt-bar-load"]);
  // The transform bar began after extract's ended.
  const extract = await page.getByTestId("gantt-bar-extract").boundingBox();
  const transform = await page.getByTestId("gantt-bar-transform").boundingBox();
  assert.ok(transform.x >= extract.x + extract.width - 1, `transform starts at ${transform.x}, extract ends at ${extract.x + extract.width}`);
  await shot(browser, "gantt-succeeded");

  // Choosing another node by its bar.
  await page.getByTestId("gantt-bar-load").click();
  await page.getByRole("region", { name: "Node load" }).waitFor();
});

test("a running node's bar grows while the run page is open, and stops when it ends", async () => {
  const { page } = browser;
  runs.push(await runWorkflow({ gate: gates[1] }));
  await page.goto(`/apps/${app}/workflow-instances/${runs[2]}`);
  const bar = page.locator(`[data-testid="gantt-bar-transform"][data-status="RUNNING"][data-open="true"]`);
  await bar.waitFor({ timeout: 60_000 });
  const first = Number(await bar.getAttribute("data-end"));
  // The page redraws it by itself (no push: the node has not changed).
  await waitUntil(async () => Number(await bar.getAttribute("data-end")) > first);
  const grown = Number(await bar.getAttribute("data-end"));
  assert.ok(grown > first);
  await shot(browser, "gantt-running");

  writeFileSync(gates[1], "");
  const done = page.locator(`[data-testid="gantt-bar-transform"][data-status="SUCCEEDED"]`);
  await done.waitFor({ timeout: 60_000 });
  assert.equal(await done.getAttribute("data-open"), null);
  await waitRun(runs[2], "SUCCEEDED");
  const { nodes } = await readRun(runs[2]);
  const transform = nodes.find((n) => n.key === "transform");
  await waitUntil(async () => Number(await done.getAttribute("data-end")) === Date.parse(transform.finishedTime));
  await page.locator(`[data-testid="gantt-bar-report"][data-status="SUCCEEDED"]`).waitFor();
  await shot(browser, "gantt-after");
});
