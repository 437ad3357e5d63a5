// Browser test of the console's workflows (issue 13), against a running
// server whose app (APP) has a live agent running SHELL scripts: the admin
// builds a 4-node DAG in the editor (a JOB, a DECISION with two labelled
// edges, a JOB on each branch) by clicking the palette and dragging edges,
// sees the server's error on the offending node, saves, runs it with a
// context, and watches the run view colour the nodes live (the branch not
// taken SKIPPED); opens a node's log; breaks a job so a node fails, fixes
// it, retries the failed nodes and sees the run succeed. A VIEWER then sees
// the workflow and its runs with no control that would change anything.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { adminPassword, api, app, baseURL, createShellJob, logIn, nav, shot, suffix, useBrowser, waitUntil } from "./lib.mjs";

const browser = useBrowser({ viewport: { width: 1440, height: 900 } });
const extract = `wf-extract-${suffix}`;
const full = `wf-load-full-${suffix}`;
const small = `wf-load-small-${suffix}`;
const workflowName = `e2e-pipeline-${suffix}`;
const viewer = `wfviewer-${suffix}`;
const viewerPassword = `pw-${suffix}-viewer`;
const jobIds = {};
let admin;
let workflowPath = "";
let firstRunPath = "";

// The extract job waits until the test has seen its node RUNNING (the agent
// runs on this machine: the test creates the gate file), logs, and appends to
// the run's context through $JOBWHEEL_WORKFLOW_OUTPUT.
const gate = join(tmpdir(), `jobwheel-wf-gate-${suffix}`);
const extractScript = `echo "extracting for $(cat "$JOBWHEEL_WORKFLOW_CONTEXT")"
while [ ! -e '${gate}' ]; do sleep 0.1; done
echo '{"rows": 3}' > "$JOBWHEEL_WORKFLOW_OUTPUT"
echo extracted`;
const fullScript = `echo "loading-full"`;
const brokenScript = `echo "load-full is broken" >&2
exit 3`;

async function setScript(jobId, name, script) {
  await admin(`mutation($id: ID!, $input: JobInput!) { updateJob(id: $id, input: $input) { id } }`, {
    id: jobId,
    input: { app, name, scheduleType: "API", processorType: "SHELL", processor: script, timeoutMs: 60_000, maxInstances: 10 },
  });
}

/** The canvas node of a key (its element carries data-status in a run). */
function dagNode(page, key) {
  return page.getByTestId(`dag-node-${key}`);
}

async function waitStatus(page, key, status, timeout = 60_000) {
  await page.locator(`[data-testid="dag-node-${key}"][data-status="${status}"]`).waitFor({ timeout });
}

/** The canvas edge from one node to another (an SVG group: "attached", not "visible"). */
function edge(page, from, to) {
  return page.locator(`.react-flow__edge[data-id="${from}->${to}"]`);
}

/** Draws an edge by dragging from one node's right handle to another's left handle. */
async function drag(page, from, to) {
  const source = page.locator(`.react-flow__node[data-id="${from}"] .react-flow__handle.source`);
  const target = page.locator(`.react-flow__node[data-id="${to}"] .react-flow__handle.target`);
  const a = await source.boundingBox();
  const b = await target.boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2 + 20, { steps: 8 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
  await page.mouse.up();
  await edge(page, from, to).waitFor({ state: "attached" });
}

/** Picks an option of a Mantine Select in the side panel. */
async function pick(page, label, option) {
  const panel = page.getByRole("region", { name: /^Node / });
  await panel.getByRole("textbox", { name: label, exact: true }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

after(() => rmSync(gate, { force: true }));

test("setup: three SHELL jobs", async () => {
  admin = await api("admin", adminPassword);
  jobIds.extract = await createShellJob(admin, extract, extractScript);
  jobIds.full = await createShellJob(admin, full, fullScript);
  jobIds.small = await createShellJob(admin, small, `echo "loading-small"`);
});

test("the admin builds a 4-node DAG in the editor and sees the server's error on the node at fault", async () => {
  const { page } = browser;
  await page.goto("/login");
  await logIn(page, "admin", adminPassword);
  await page.goto(`/apps/${app}/dashboard`);
  await nav(page, "Workflows").click();
  await page.waitForURL(new RegExp(`/apps/${app}/workflows$`));
  await page.getByRole("link", { name: "New workflow" }).click();
  await page.waitForURL(/\/workflows\/new$/);

  await page.getByRole("textbox", { name: "Name" }).fill(workflowName);
  await page.getByRole("button", { name: "Add Job node" }).click();
  await pick(page, "Job", extract);
  await page.getByRole("button", { name: "Add Decision node" }).click();
  // Not an expression: the server's error is shown on this node.
  await page.getByRole("textbox", { name: "Expression" }).fill(`context.mode ==`);
  await page.getByRole("button", { name: "Add Job node" }).click();
  await pick(page, "Job", full);
  await page.getByRole("button", { name: "Add Job node" }).click();
  await pick(page, "Job", small);
  // A node added and removed with the Delete key, then brought back with undo and removed again.
  await page.getByRole("button", { name: "Add Approval node" }).click();
  await dagNode(page, "approval_1").click();
  // Delete removes the selected node: on a busy machine the key can come
  // before React Flow has selected the node clicked, and delete nothing.
  await page.locator(`.react-flow__node.selected [data-testid="dag-node-approval_1"]`).waitFor();
  await page.keyboard.press("Delete");
  await dagNode(page, "approval_1").waitFor({ state: "detached" });
  await page.getByTestId("workflow-canvas").locator(".react-flow__pane").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("Control+z");
  await dagNode(page, "approval_1").waitFor();
  await page.getByRole("button", { name: "Undo" }).click();
  await dagNode(page, "approval_1").waitFor({ state: "detached" });

  await drag(page, "job_1", "decision_1");
  await drag(page, "decision_1", "job_2");
  await drag(page, "decision_1", "job_3");
  // The decision's edges are labelled true and false as drawn.
  assert.equal(await edge(page, "decision_1", "job_2").textContent(), "true");
  assert.equal(await edge(page, "decision_1", "job_3").textContent(), "false");
  await page.getByRole("button", { name: "Auto-layout" }).click();

  await page.getByRole("button", { name: "Create workflow" }).click();
  const decision = dagNode(page, "decision_1");
  await page.locator(`[data-testid="dag-node-decision_1"][data-problems="true"]`).waitFor();
  assert.match(await decision.innerText(), /expression/i);
  await shot(browser, "workflow-editor-server-error");

  await decision.click();
  await page.getByRole("textbox", { name: "Expression" }).fill(`context.mode == "full"`);
  await page.getByRole("button", { name: "Create workflow" }).click();
  await page.waitForURL(/\/workflows\/\d+$/);
  workflowPath = new URL(page.url()).pathname;
  await page.getByRole("heading", { name: workflowName }).waitFor();
  await page.locator(".react-flow__edge").nth(2).waitFor({ state: "attached" });
  assert.equal(await page.locator(".react-flow__node").count(), 4);
  await shot(browser, "workflow-editor");
});

test("a run with a context colours the nodes live; the branch not taken is SKIPPED; a node's log opens", async () => {
  const { page } = browser;
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox", { name: "Context" }).fill(`{"mode": full}`);
  await dialog.getByRole("button", { name: "Run" }).click();
  await dialog.getByText(/Not valid JSON/).waitFor();
  await dialog.getByRole("textbox", { name: "Context" }).fill(`{"mode": "full"}`);
  await dialog.getByRole("button", { name: "Run" }).click();
  await dialog.getByRole("link", { name: /^Open run #\d+$/ }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/workflow-instances/\\d+$`));
  firstRunPath = new URL(page.url()).pathname;

  // Live, without reloading: the first job is seen running, then each node ends.
  await waitStatus(page, "job_1", "RUNNING");
  await waitStatus(page, "job_2", "WAITING");
  await shot(browser, "workflow-run-running");
  writeFileSync(gate, "");
  await waitStatus(page, "job_1", "SUCCEEDED");
  await waitStatus(page, "decision_1", "SUCCEEDED");
  await waitStatus(page, "job_2", "SUCCEEDED");
  await waitStatus(page, "job_3", "SKIPPED");
  await page.getByText("SUCCEEDED", { exact: true }).first().waitFor();
  assert.match(await page.getByTestId("run-context").innerText(), /"rows": 3/);

  await dagNode(page, "job_1").click();
  const panel = page.getByRole("region", { name: "Node job_1" });
  await panel.getByTestId("log-lines").getByText("extracted").waitFor();
  await panel.getByText(/Context it saw/).click();
  assert.match(await panel.getByTestId("node-input").innerText(), /"mode": "full"/);
  assert.match(await panel.innerText(), /"rows": 3/);
  await shot(browser, "workflow-run");
});

test("a broken job fails its node; fixed, 'Retry failed nodes' makes the run succeed", async () => {
  const { page } = browser;
  await setScript(jobIds.full, full, brokenScript);
  await page.goto(workflowPath);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox", { name: "Context" }).fill(`{"mode": "full"}`);
  await dialog.getByRole("button", { name: "Run" }).click();
  await dialog.getByRole("link", { name: /^Open run #\d+$/ }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/workflow-instances/\\d+$`));
  await waitStatus(page, "job_2", "FAILED");
  await page.getByRole("button", { name: "Retry failed nodes" }).waitFor();
  await dagNode(page, "job_2").click();
  await page.getByRole("region", { name: "Node job_2" }).getByTestId("log-lines").getByText("load-full is broken").waitFor();
  await shot(browser, "workflow-run-failed");

  await setScript(jobIds.full, full, fullScript);
  await page.getByRole("button", { name: "Retry failed nodes" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Retry failed nodes" }).click();
  await waitStatus(page, "job_2", "SUCCEEDED");
  await page.getByRole("heading", { name: /^Run #\d+$/ }).locator("..").getByText("SUCCEEDED", { exact: true }).waitFor();
  await waitStatus(page, "job_1", "SUCCEEDED");
  await shot(browser, "workflow-run-retried");

  // Both runs are in the workflow's runs list, counted.
  await page.goto(`${workflowPath}?tab=runs`);
  await page.getByTestId("runs-total").getByText("2 runs").waitFor();
  await page.getByRole("table", { name: "Workflow runs" }).getByRole("row").nth(2).waitFor();
});

test("a VIEWER sees the workflow and its runs but no control that changes anything", async () => {
  await admin(`mutation($u: String!, $p: String!) { createUser(username: $u, password: $p) { id } }`, {
    u: viewer,
    p: viewerPassword,
  });
  await admin(`mutation($a: String!, $u: String!) { setAppRole(app: $a, username: $u, role: VIEWER) { id } }`, { a: app, u: viewer });
  // A browser context of its own, so the admin's session is not reused.
  const context = await browser.browser.newContext({ baseURL, viewport: { width: 1440, height: 900 }, reducedMotion: "reduce" });
  const page = await context.newPage();
  // The viewer's screenshots go on in the admin's numbering.
  const viewerShot = async (name) => {
    const state = { page, shots: browser.shots };
    await shot(state, name);
    browser.shots = state.shots;
  };
  const problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") problems.push(msg.text());
  });
  try {
    await page.goto("/login");
    await logIn(page, viewer, viewerPassword);
    const editing =
      /^(New workflow|Import|Run|Save workflow|Create workflow|Duplicate|Delete|Delete node|Retry failed nodes|Stop|Pause|Resume|Mark succeeded|Rerun node|Rerun with downstream|Approve|Reject|Restore version \d+|Add .* node|Undo|Redo|Auto-layout)$/;
    async function controls() {
      const found = [];
      for (const el of await page.getByRole("main").getByRole("button").all()) {
        const name = (await el.getAttribute("aria-label")) ?? (await el.innerText()).trim();
        if (editing.test(name)) found.push(name);
      }
      for (const el of await page.getByRole("main").getByRole("link").all()) {
        const name = (await el.innerText()).trim();
        if (editing.test(name)) found.push(`link ${name}`);
      }
      const switches = await page.getByRole("main").getByRole("switch", { name: / enabled$/ }).count();
      if (switches > 0) found.push(`${switches} enable switches`);
      return found;
    }
    await page.goto(`/apps/${app}/workflows`);
    await page.getByRole("row", { name: new RegExp(workflowName) }).waitFor();
    assert.deepEqual(await controls(), []);
    await page.goto(workflowPath);
    await page.locator(".react-flow__node").nth(3).waitFor();
    assert.deepEqual(await controls(), []);
    // The side panel shows a node's options, disabled.
    await dagNode(page, "decision_1").click();
    assert.equal(await page.getByRole("textbox", { name: "Expression" }).isDisabled(), true);
    assert.deepEqual(await controls(), []);
    await viewerShot("workflow-viewer");
    await page.goto(firstRunPath);
    await waitStatus(page, "job_3", "SKIPPED");
    await dagNode(page, "job_2").click();
    await page.getByRole("region", { name: "Node job_2" }).getByTestId("log-lines").getByText("loading-full").waitFor();
    assert.deepEqual(await controls(), []);
    await viewerShot("workflow-run-viewer");
    await page.goto(`/apps/${app}/workflow-instances`);
    await page.getByTestId("runs-total").waitFor();
    assert.deepEqual(await controls(), []);
    // The server refuses the viewer all the same.
    const asViewer = await api(viewer, viewerPassword);
    const workflowId = workflowPath.split("/").at(-1);
    await assert.rejects(
      asViewer(`mutation($id: ID!) { runWorkflow(id: $id) { id } }`, { id: workflowId }),
      /FORBIDDEN/,
    );
    assert.deepEqual(problems, [], "the viewer's browser console reported problems");
  } finally {
    await context.close();
  }
});
