// Browser test of the console on a narrow screen (issue 28 defect 4),
// against a running server whose app (APP) has a live agent running SHELL
// scripts. At 800 px: the navigation is collapsed behind a burger, which
// opens and closes it; the jobs table keeps its key columns (name, enabled,
// schedule, next fire, last run, run now) on screen, its times also in the
// job's zone (defect 6); a job with a
// 128-character name is named whole in its page's heading, which wraps;
// a workflow run page fits. At 1,100 px the schedule badges say their whole
// word.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { adminPassword, api, app, logIn, shot, suffix, useBrowser, waitUntil } from "./lib.mjs";

const width = 800;
const browser = useBrowser({ viewport: { width, height: 900 } });

let call;
/** 128 characters, the most a name may have, with no space to wrap at. */
const longName = `e2e-narrow-${suffix}-`.padEnd(128, "x");
let longJob = "";
let run = "";
/** What the server answered a refused updateJob. */
let refusal = "";
let alarmedJob = "";

test("setup: a cron job with the longest name, and a workflow run", async () => {
  call = await api("admin", adminPassword);
  const { createJob } = await call(`mutation($input: JobInput!) { createJob(input: $input) { id } }`, {
    input: {
      app,
      name: longName,
      scheduleType: "CRON",
      scheduleExpression: "0 0/5 * * * ?",
      timeZone: "Asia/Shanghai",
      processorType: "SHELL",
      processor: "echo hi",
    },
  });
  longJob = createJob.id;
  await call(`mutation($id: ID!) { runJob(id: $id) { id } }`, { id: longJob });
  // A refused change (a bad timeout), for the audit log.
  await assert.rejects(
    call(`mutation($id: ID!, $input: JobInput!) { updateJob(id: $id, input: $input) { id } }`, {
      id: longJob,
      input: { app, name: longName, scheduleType: "CRON", scheduleExpression: "0 0/5 * * * ?", processorType: "SHELL", processor: "echo hi", timeoutMs: -5 },
    }),
    (err) => {
      refusal = err.errors[0].message;
      return err.errors[0].extensions.code === "BAD_INPUT";
    },
  );
  // An alarm whose delivery fails (nothing listens on port 9), for the alarm history.
  const { createJob: alarmed } = await call(`mutation($input: JobInput!) { createJob(input: $input) { id } }`, {
    input: {
      app,
      name: `alarmed-${suffix}`,
      scheduleType: "API",
      processorType: "SHELL",
      processor: "exit 1",
      alarm: { rules: [{ type: "FAILURE" }], channels: [{ type: "WEBHOOK", target: "http://127.0.0.1:9/ops" }] },
    },
  });
  alarmedJob = alarmed.id;
  await call(`mutation($id: ID) { sendTestAlarm(jobId: $id) { ok } }`, { id: alarmedJob });
  const { createWorkflow } = await call(`mutation($input: WorkflowInput!) { createWorkflow(input: $input) { id } }`, {
    input: {
      app,
      name: `narrow-flow-${suffix}`,
      scheduleType: "API",
      nodes: [
        { key: "extract", type: "JOB", jobId: longJob, name: "Extract the orders of the day" },
        { key: "load", type: "JOB", jobId: longJob, name: "Load them into the warehouse" },
      ],
      edges: [{ from: "extract", to: "load" }],
    },
  });
  ({
    runWorkflow: { id: run },
  } = await call(`mutation($id: ID!) { runWorkflow(id: $id) { id } }`, { id: createWorkflow.id }));
  await waitUntil(async () => {
    const { workflowInstance } = await call(`query($id: ID!) { workflowInstance(id: $id) { status } }`, { id: run });
    return workflowInstance.status === "SUCCEEDED";
  }, 60_000);
});

/** Whether the main navigation shows (collapsed, it is moved out of the window). */
async function navigationShown(page) {
  const box = await page.getByRole("navigation", { name: "Main" }).boundingBox();
  return box !== null && box.x + box.width > 0;
}

/** Fails unless the page scrolls no wider than the window. */
async function assertNoSidewaysScroll(page, what) {
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scroll <= width, `${what}: the page is ${scroll} px wide in a ${width} px window`);
}

/** Fails unless the element is whole inside the window, left to right. */
async function assertOnScreen(locator, what) {
  await locator.waitFor();
  const box = await locator.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${what} is off screen: ${JSON.stringify(box)}`);
}

test("the navigation collapses behind a burger at 800 px", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/jobs`);
  await logIn(page, "admin", adminPassword);
  await page.goto(`/apps/${app}/jobs`);
  const navigation = page.getByRole("navigation", { name: "Main" });
  const burger = page.getByRole("button", { name: "Open navigation" });
  await burger.waitFor();
  assert.equal(await navigationShown(page), false, "the navbar is open");
  await burger.click();
  await waitUntil(() => navigationShown(page));
  await shot(browser, "navigation-open");
  await navigation.getByRole("link", { name: "Jobs", exact: true }).click();
  await waitUntil(async () => !(await navigationShown(page)));
});

test("the jobs table keeps its key columns on screen at 800 px", async () => {
  const { page } = browser;
  const row = page.getByRole("row", { name: new RegExp(longName) });
  await row.waitFor();
  for (const head of ["Name", "Enabled", "Schedule", "Next fire", "Last run"]) {
    await assertOnScreen(page.getByRole("columnheader", { name: head, exact: true }), `the ${head} column`);
  }
  await assertOnScreen(row.getByRole("link", { name: longName, exact: true }), "the job's name");
  await assertOnScreen(row.locator(".mantine-Switch-track"), "its Enabled switch");
  await assertOnScreen(row.getByText("0 0/5 * * * ?", { exact: true }), "its cron expression");
  await assertOnScreen(row.getByRole("button", { name: `Run ${longName} now` }), "its Run now button");
  // Its next fire and last run, also as the clock reads in Shanghai (the browser is in Berlin).
  const zoned = row.getByTestId("zoned-time");
  await zoned.first().waitFor();
  assert.equal(await zoned.count(), 2);
  for (const text of await zoned.allInnerTexts()) assert.match(text, /Asia\/Shanghai$/);
  await assertOnScreen(zoned.first(), "the next fire in Shanghai");
  await assertNoSidewaysScroll(page, "jobs");
  await shot(browser, "jobs-800");
});

test("a job's page names the job whole at 800 px, its heading wrapping", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/jobs/${longJob}`);
  const heading = page.getByRole("heading", { level: 2 });
  await heading.waitFor();
  assert.match(await heading.innerText(), new RegExp(longName.replace(/x+$/, "")));
  const box = await heading.boundingBox();
  assert.ok(box.width >= 200, `the heading is ${box.width} px wide`);
  // Every character shows: nothing cut, nothing past the window.
  const cut = await heading.evaluate((el) => [...el.querySelectorAll("*"), el].some((e) => e.scrollWidth > e.clientWidth + 1));
  assert.equal(cut, false, "the heading's name is cut");
  await assertOnScreen(heading, "the heading");
  await assertOnScreen(page.getByRole("button", { name: `Run ${longName} now` }), "Run now");
  await assertNoSidewaysScroll(page, "the job page");
  await shot(browser, "job-800");
});

test("a workflow run page fits 800 px", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/workflow-instances/${run}`);
  const heading = page.getByRole("heading", { level: 2 });
  await heading.waitFor();
  await page.locator('[data-status="SUCCEEDED"]').first().waitFor();
  await assertOnScreen(heading, "the heading");
  assert.equal(await navigationShown(page), false, "the navbar takes room from the DAG");
  await assertNoSidewaysScroll(page, "the workflow run");
  await shot(browser, "workflow-run-800");
});

/** Fails unless a badge's word shows whole (no "BAD_I…"). */
async function assertBadgeWhole(badge, word) {
  await badge.waitFor();
  const label = badge.locator(".mantine-Badge-label");
  assert.equal((await label.innerText()).toUpperCase(), word);
  // The badge clips its label: cut when the label is wider than the badge's inside.
  const cut = await badge.evaluate((root) => {
    const label = root.querySelector(".mantine-Badge-label");
    const style = getComputedStyle(root);
    const inside = root.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    // An ellipsis shows as soon as the label is a pixel short.
    return root.scrollWidth > root.clientWidth || label.scrollWidth > Math.ceil(inside) || label.scrollWidth > label.clientWidth;
  });
  assert.equal(cut, false, `the ${word} badge is cut`);
}

test("at 800 px the audit log shows a refusal's outcome whole, with its error", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/audit`);
  const row = page.getByRole("row").filter({ hasText: "updateJob" }).filter({ hasText: "BAD_INPUT" }).first();
  await assertBadgeWhole(row.locator(".mantine-Badge-root"), "BAD_INPUT");
  await row.getByText(refusal, { exact: true }).waitFor();
  // A 128-character name and long values wrap: the page does not scroll sideways.
  await assertNoSidewaysScroll(page, "the audit log");
  await shot(browser, "audit-800");
});

test("at 800 and 1,100 px the alarm history shows a failed delivery's outcome whole", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/jobs/${alarmedJob}/alarms`);
  const history = page.getByRole("table", { name: "Alarm history" });
  await assertBadgeWhole(history.locator(".mantine-Badge-root").first(), "FAILED");
  await shot(browser, "alarm-history-800");
  // With the navbar beside it, the long answer squeezes the other columns.
  await page.setViewportSize({ width: 1100, height: 900 });
  await assertBadgeWhole(history.locator(".mantine-Badge-root").first(), "FAILED");
  await shot(browser, "alarm-history-1100");
  await page.setViewportSize({ width, height: 900 });
});

test("at 1,100 px a job's schedule badge says its whole word", async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.goto(`/apps/${app}/jobs`);
  const row = page.getByRole("row", { name: new RegExp(longName) });
  await row.waitFor();
  await assertBadgeWhole(row.locator(".mantine-Badge-root", { hasText: /^C/ }).first(), "CRON");
  await shot(browser, "jobs-1100");

  // And on the job's page, whose schedule card is a third of the width.
  await page.goto(`/apps/${app}/jobs/${longJob}`);
  const card = page.getByRole("region", { name: "Schedule" });
  await assertBadgeWhole(card.locator(".mantine-Badge-root").first(), "CRON");
  const cardBox = await card.boundingBox();
  const cron = await card.getByText("0 0/5 * * * ?", { exact: true }).boundingBox();
  assert.ok(cron.x + cron.width <= cardBox.x + cardBox.width, "the cron expression runs out of its card");
  await shot(browser, "job-1100");
  await page.setViewportSize({ width, height: 900 });
});

test("in Chinese at 800 px the jobs table keeps its row's actions on screen", async () => {
  const { page } = browser;
  await page.evaluate(() => localStorage.setItem("jobwheel.language", "zh-CN"));
  await page.goto(`/apps/${app}/jobs`);
  const row = page.getByRole("row", { name: new RegExp(longName) });
  await row.waitFor();
  await page.getByRole("columnheader", { name: "下次触发" }).waitFor();
  await assertOnScreen(row.getByRole("button", { name: `${longName} 的更多操作` }), "the row's menu");
  await assertNoSidewaysScroll(page, "jobs in Chinese");
  await shot(browser, "jobs-800-zh-CN");
  await page.goto(`/apps/${app}/jobs/${longJob}`);
  await page.getByRole("heading", { level: 2 }).waitFor();
  await assertNoSidewaysScroll(page, "a job in Chinese");
  await shot(browser, "job-800-zh-CN");
  await page.evaluate(() => localStorage.setItem("jobwheel.language", "en"));
});
