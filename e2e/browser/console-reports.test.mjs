// Browser test of the run report and the cross-app overview (issue 28 item
// 15) against a running server whose app (APP) has a live agent running
// SHELL scripts: after runs that succeed and fail, Reports shows their
// counts, success rate, a chart per day and tables per job, per day and per
// day and job (with durations), for the app and for all apps; Overview lists
// the app as failing with today's runs and its worker, and an app with a job
// and no worker as having none; both are in the navbar, and read in Chinese.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { adminPassword, api, app, createShellJob, logIn, nav, runJob, shot, suffix, useBrowser, waitFinished, waitUntil } from "./lib.mjs";

const browser = useBrowser();

let call;
const okName = `e2e-report-ok-${suffix}`;
const badName = `e2e-report-bad-${suffix}`;
const idleApp = `idle-${suffix}`;

test("setup: jobs that succeed and fail have run, and an app without workers has a job", async () => {
  call = await api("admin", adminPassword);
  const ok = await createShellJob(call, okName, "sleep 1; echo fine");
  const bad = await createShellJob(call, badName, "echo about to fail\nexit 3");
  const runs = [
    ...(await Promise.all([1, 2, 3].map(() => runJob(call, ok)))),
    ...(await Promise.all([1, 2].map(() => runJob(call, bad)))),
  ];
  const outcomes = await Promise.all(runs.map((id) => waitFinished(call, id)));
  assert.deepEqual(outcomes.sort(), ["FAILED", "FAILED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
  await call(`mutation($n: String!) { createApp(name: $n) { app { id } } }`, { n: idleApp });
  await call(`mutation($input: JobInput!) { createJob(input: $input) { id } }`, {
    input: { app: idleApp, name: "waits-for-a-worker", scheduleType: "API", processorType: "SHELL", processor: "true" },
  });
});

/** The figure of a report's card. */
async function figure(page, id) {
  return (await page.getByTestId(`report-${id}-value`).innerText()).trim();
}

test("the report of the app shows its runs, outcomes and durations per day and job", async () => {
  const { page } = browser;
  await page.goto(`/reports?app=${app}`);
  await logIn(page, "admin", adminPassword);
  await nav(page, "Reports").and(page.locator('[aria-current="page"]')).waitFor();
  await page.getByRole("heading", { name: "Reports", level: 2 }).waitFor();
  await page.getByTestId("report-runs-value").waitFor();
  assert.equal(await figure(page, "runs"), "5");
  assert.equal(await figure(page, "succeeded"), "3");
  assert.equal(await figure(page, "failed"), "2");
  assert.equal(await figure(page, "rate"), "60%");
  // The last 7 days by default, today's button pressed.
  assert.equal(await page.getByRole("button", { name: "Last 7 days" }).getAttribute("aria-pressed"), "true");

  // The chart: a bar per outcome of today (recharts).
  const chart = page.getByRole("img", { name: "Runs per day: 5 runs, 3 succeeded, 2 failed" });
  await chart.locator(".recharts-bar-rectangle").first().waitFor();
  assert.ok((await chart.locator(".recharts-bar-rectangle").count()) >= 2, "bars for successes and failures");

  // Per job over the range.
  const jobs = page.getByRole("table", { name: "Per job" });
  const okRow = jobs.getByRole("row").filter({ hasText: okName });
  const badRow = jobs.getByRole("row").filter({ hasText: badName });
  const cells = async (row) => (await row.getByRole("cell").allInnerTexts()).map((s) => s.trim());
  // runs, succeeded, failed, stopped, canceled, rate, worst p95, longest
  const ok = await cells(okRow);
  assert.deepEqual(ok.slice(0, 6), ["3", "3", "0", "0", "0", "100%"]);
  assert.match(ok[7], /^\d+(\.\d)? s$/, "the longest run took a second or more");
  assert.deepEqual((await cells(badRow)).slice(0, 6), ["2", "0", "2", "0", "0", "0%"]);
  await shot(browser, "report-app");

  // Per day: today holds the five.
  await page.getByRole("tab", { name: "Per day", exact: true }).click();
  const days = page.getByRole("table", { name: "Per day", exact: true });
  assert.equal(await days.getByRole("row").count(), 8, "a head and seven days");
  assert.deepEqual((await days.getByRole("row").last().getByRole("cell").allInnerTexts()).slice(0, 3), ["5", "3", "2"]);

  // Per day and job, with the median and p95.
  await page.getByRole("tab", { name: "Per day and job" }).click();
  const rows = page.getByRole("table", { name: "Per day and job" });
  assert.equal(await rows.getByRole("row").count(), 3);
  const okDay = await cells(rows.getByRole("row").filter({ hasText: okName }));
  assert.equal(okDay[1], "3", "three runs of the good job today");
  assert.match(okDay.at(-3), /s$/, "its median duration");
  await shot(browser, "report-rows");
});

test("the report of all apps names each job's app", async () => {
  const { page } = browser;
  // The header has an app picker too.
  await page.getByRole("main").getByLabel("App", { exact: true }).click();
  await page.getByRole("option", { name: "All apps" }).click();
  await page.waitForURL((url) => !url.searchParams.has("app"));
  await page.getByRole("tab", { name: "Per job", exact: true }).click();
  const jobs = page.getByRole("table", { name: "Per job" });
  await jobs.waitFor();
  const okRow = jobs.getByRole("row").filter({ hasText: okName });
  await okRow.getByRole("link", { name: app, exact: true }).waitFor();
  assert.ok(Number(await figure(page, "runs")) >= 5);
});

test("the overview shows each app's health at a glance", async () => {
  const { page } = browser;
  await nav(page, "Overview").click();
  const table = page.getByRole("table", { name: "Overview" });
  await table.waitFor();
  const row = table.locator(`tr[data-app="${app}"]`);
  const idle = table.locator(`tr[data-app="${idleApp}"]`);
  await row.waitFor();
  // jobs, runs today, failures today, rate, running now, workers online
  const cells = (await row.getByRole("cell").allInnerTexts()).map((s) => s.trim());
  assert.match(cells[0], /^Failing$/i);
  assert.ok(Number(cells[2]) >= 5, "today's runs");
  assert.equal(cells[3], "2", "today's failures");
  assert.equal(cells[6], "1", "one worker online");
  assert.match(await idle.innerText(), /No workers/i);
  // Apps needing a look come before healthy ones; both of these do.
  await shot(browser, "overview");

  // Today's runs open that app's report for today.
  await row.getByTestId("runs-today").click();
  await page.waitForURL(new RegExp(`/reports\\?app=${app}&from=`));
  await page.getByRole("img", { name: /^Runs per day: \d+ runs/ }).waitFor();
});

test("an instance's log opens from its row, and jobs are disabled and enabled in bulk (item 16)", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/instances?status=FAILED`);
  const row = page.getByRole("row").filter({ hasText: badName }).first();
  await row.getByRole("button", { name: /^Retry instance #\d+$/ }).waitFor();
  await row.getByRole("button", { name: /^Log of instance #\d+$/ }).click();
  const drawer = page.getByRole("dialog", { name: /^Log of instance #\d+$/ });
  await drawer.getByText("about to fail").first().waitFor();
  assert.match(page.url(), /\/instances\?status=FAILED$/, "the list stays open behind the drawer");
  await shot(browser, "instance-log-drawer");
  await page.keyboard.press("Escape");
  await drawer.waitFor({ state: "hidden" });

  await page.goto(`/apps/${app}/jobs`);
  await page.getByRole("checkbox", { name: `Select ${okName}` }).check();
  await page.getByRole("checkbox", { name: `Select ${badName}` }).check();
  await page.getByTestId("bulk-count").getByText("2 jobs selected").waitFor();
  await page.getByRole("button", { name: "Disable", exact: true }).click();
  await waitUntil(async () => {
    const { jobs } = await call(`query($a: String!) { jobs(app: $a) { edges { node { name enabled } } } }`, { a: app });
    return jobs.edges.filter((e) => [okName, badName].includes(e.node.name) && !e.node.enabled).length === 2;
  });
  await page.getByRole("switch", { name: `${okName} enabled` }).and(page.locator(":not(:checked)")).waitFor({ state: "attached" });
  await shot(browser, "jobs-bulk-disabled");
  await page.getByRole("button", { name: "Enable", exact: true }).click();
  await page.getByRole("switch", { name: `${okName} enabled` }).and(page.locator(":checked")).waitFor({ state: "attached" });
  await page.getByRole("switch", { name: `${badName} enabled` }).and(page.locator(":checked")).waitFor({ state: "attached" });
});

test("in Chinese, the report and the overview read in Chinese", async () => {
  const { page } = browser;
  await page.evaluate(() => localStorage.setItem("jobwheel.language", "zh-CN"));
  await page.goto(`/reports?app=${app}`);
  await page.getByRole("heading", { name: "运行报表", level: 2 }).waitFor();
  await page.getByRole("table", { name: "按任务" }).waitFor();
  await page.getByRole("img", { name: /^每日运行：共 \d+ 次/ }).waitFor();
  await shot(browser, "report-zh-CN");
  await page.getByRole("navigation", { name: /./ }).getByRole("link", { name: "总览", exact: true }).click();
  await page.getByRole("table", { name: "总览" }).locator(`tr[data-app="${app}"]`).getByText("有失败").waitFor();
  await shot(browser, "overview-zh-CN");
  await page.evaluate(() => localStorage.setItem("jobwheel.language", "en"));
});
