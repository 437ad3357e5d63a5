// Browser test of a job's Alarms tab, against a running server that may
// call the local receiver HOOK_URL (a loopback webhook, allowed by the
// server's JOBWHEEL_ALARM_ALLOW_NETWORKS): the admin sets a job's alarm
// through the API, opens the job's Alarms tab, presses "Send test alarm",
// sees the receiver's answer, and finds the test in the alarm history.
// Then a workflow's Alarms tab: it offers no late-start rule, saves a rule
// switched on (a new version, as the API then reads it), and sends a test
// alarm to the workflow's channel (HOOK_URL/browser-workflow).
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM), plus HOOK_URL. Any console error or warning fails
// the test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { adminPassword, api, app, logIn, shot, suffix, useBrowser } from "./lib.mjs";

const browser = useBrowser();
const hook = process.env.HOOK_URL;
let jobId = "";
let workflowId = "";

test("setup: a job whose alarm names the local webhook", async () => {
  assert.ok(hook, "HOOK_URL is not set");
  const admin = await api("admin", adminPassword);
  const { createJob } = await admin(`mutation($input: JobInput!) { createJob(input: $input) { id } }`, {
    input: {
      app,
      name: `alarmed-${suffix}`,
      scheduleType: "API",
      processorType: "SHELL",
      processor: "exit 1",
      alarm: {
        rules: [{ type: "FAILURE", silenceSec: 600 }, { type: "RECOVERY" }],
        channels: [{ type: "WEBHOOK", target: `${hook}/browser?key=secret-key` }],
      },
    },
  });
  jobId = createJob.id;
  const { createWorkflow } = await admin(`mutation($input: WorkflowInput!) { createWorkflow(input: $input) { id } }`, {
    input: {
      app,
      name: `alarmed-flow-${suffix}`,
      scheduleType: "API",
      nodes: [{ key: "a", type: "JOB", jobId }],
      edges: [],
      alarm: {
        rules: [{ type: "FAILURE", silenceSec: 600 }],
        channels: [{ type: "WEBHOOK", target: `${hook}/browser-workflow?key=flow-key` }],
      },
    },
  });
  workflowId = createWorkflow.id;
});

test("the Alarms tab sends a test alarm and shows the answer and the history", async () => {
  const { page } = browser;
  await page.goto("/");
  await logIn(page, "admin", adminPassword);
  await page.goto(`/apps/${app}/jobs/${jobId}`);
  await page.getByRole("tab", { name: "Alarms" }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs/${jobId}/alarms$`));
  await page.getByText("An instance fails; then quiet for 600 s").waitFor();
  // The page shows the channel's scheme and host, not its key.
  assert.doesNotMatch(await page.getByText(/^Webhook \(JSON\): /).innerText(), /secret-key/);
  await page.getByText("No alarm yet").waitFor();
  await page.getByRole("button", { name: "Send test alarm" }).click();
  const answers = page.getByRole("table", { name: "Test alarm answers" });
  await answers.getByText("delivered").waitFor();
  const row = await answers.getByRole("row").nth(1).innerText();
  assert.match(row, /Webhook/);
  assert.match(row, /200/);
  assert.doesNotMatch(row, /secret-key/, "the answer table shows the URL's key");
  const history = page.getByRole("table", { name: "Alarm history" });
  await history.getByText("alarm.test").waitFor();
  assert.match(await history.innerText(), /SENT/);
  await shot(browser, "job-alarms");
});

test("a workflow's Alarms tab saves its rules and sends a test alarm", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/workflows/${workflowId}`);
  await page.getByRole("tab", { name: "Alarms" }).click();
  await page.waitForURL(/[?&]tab=alarms/);
  const failure = page.getByRole("checkbox", { name: "A run fails" });
  assert.ok(await failure.isChecked(), "the saved FAILURE rule is not shown on");
  assert.equal(await page.getByText("An instance starts late").count(), 0, "a workflow is offered START_LATE");
  await page.getByRole("checkbox", { name: "A run times out" }).check();
  await page.getByRole("button", { name: "Save alarm" }).click();
  await page.getByText("Saved the alarm as version 2.").waitFor();
  assert.ok(await page.getByRole("checkbox", { name: "A run times out" }).isChecked());
  const admin = await api("admin", adminPassword);
  const { workflow } = await admin(`query($id: ID!) { workflow(id: $id) { version nodes { key jobId } alarm { rules { type silenceSec } } } }`, {
    id: workflowId,
  });
  assert.equal(workflow.version, 2);
  assert.deepEqual(workflow.nodes, [{ key: "a", jobId }]);
  assert.deepEqual(workflow.alarm.rules, [
    { type: "FAILURE", silenceSec: 600 },
    { type: "TIMEOUT", silenceSec: 0 },
  ]);

  await page.getByRole("button", { name: "Send test alarm" }).click();
  const answers = page.getByRole("table", { name: "Test alarm answers" });
  await answers.getByText("delivered").waitFor();
  assert.doesNotMatch(await answers.innerText(), /flow-key/, "the answer table shows the URL's key");
  await page.getByRole("table", { name: "Alarm history" }).getByText("alarm.test").waitFor();
  await shot(browser, "workflow-alarms");
});
