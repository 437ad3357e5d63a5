// Browser test of the console's live screens against a running server whose
// app (APP) has a live agent running SHELL scripts: the dashboard shows the
// app's counts and its outcomes chart after some runs; an instance's log
// lines arrive through the instanceLogs subscription while it is RUNNING;
// the instance page and the Instances list follow instanceUpdated; a
// MAP_REDUCE instance shows its reduce result, its tasks by status and
// page, and one task in a drawer; the screens fit a 1024×768 laptop screen, and dark mode.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  adminPassword,
  api,
  app,
  createShellJob,
  logIn,
  nav,
  runJob,
  shot,
  suffix,
  useBrowser,
  waitFinished,
  waitUntil,
} from "./lib.mjs";

const browser = useBrowser();
const runTimeout = 60_000;

let call;
const jobs = {};
/** The slow job's instance, once run. */
let slowInstance = "";
/** The map-reduce instance, once run. */
let mapReduceInstance = "";

test("setup: jobs that succeed and fail have run", async () => {
  call = await api("admin", adminPassword);
  jobs.ok = await createShellJob(call, `e2e-ok-${suffix}`, "echo fine");
  jobs.bad = await createShellJob(call, `e2e-bad-${suffix}`, "echo about to fail\nexit 3");
  jobs.slow = await createShellJob(call, `e2e-slow-${suffix}`, "for i in $(seq 1 8); do echo line-$i; sleep 1; done");
  const runs = [
    ...(await Promise.all([1, 2, 3].map(() => runJob(call, jobs.ok)))),
    ...(await Promise.all([1, 2].map(() => runJob(call, jobs.bad)))),
  ];
  const outcomes = await Promise.all(runs.map((id) => waitFinished(call, id)));
  assert.deepEqual(outcomes.sort(), ["FAILED", "FAILED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
});

test("an app opens at its dashboard, with the counts and the outcomes chart", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}`);
  await logIn(page, "admin", adminPassword);
  await page.waitForURL(new RegExp(`/apps/${app}/dashboard$`));
  const labels = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts();
  assert.deepEqual(labels, ["Apps", "Overview", "Reports", "Dashboard", "Jobs", "Instances", "Workflows", "Calendars", "Pools", "Workers", "Settings", "Audit", "Servers", "Users", "API tokens"]);
  // The navbar marks the screen once the route has rendered: wait for it.
  await nav(page, "Dashboard").and(page.locator('[aria-current="page"]')).waitFor();

  const count = async (label) => Number(await page.getByTestId(`stat-${label}`).locator("p").nth(1).innerText());
  await page.getByTestId("stat-Jobs").waitFor();
  assert.ok((await count("Jobs")) >= 3, "three jobs at least");
  assert.ok((await count("Failed")) >= 2, "two failures at least");
  assert.ok((await count("Succeeded")) >= 3, "three successes at least");
  assert.equal(await count("Live workers"), 1);

  // The chart is drawn by recharts: stacked bars, an axis, a legend.
  const chart = page.getByRole("img", { name: /^Outcomes per hour: \d+ succeeded, \d+ failed/ });
  await chart.locator(".recharts-bar-rectangle").first().waitFor();
  assert.ok((await chart.locator(".recharts-bar-rectangle").count()) >= 2, "a bar per outcome of the hour");
  // The legend's item, not the tooltip's: a pointer over the chart shows a tooltip naming it too.
  assert.ok(await chart.locator(".mantine-ChartLegend-legendItemName", { hasText: /^Succeeded$/ }).isVisible(), "the legend names the outcomes");
  await shot(browser, "dashboard");

  // The same numbers as a table.
  // The segmented control's radio inputs are hidden behind their labels.
  await page.locator("label", { hasText: /^Table$/ }).click();
  const table = page.getByRole("table", { name: "Outcomes per hour" });
  await table.waitFor();
  assert.ok((await table.getByRole("row").count()) >= 2);
  await page.locator("label", { hasText: /^Chart$/ }).click();
  await page.locator(".recharts-bar-rectangle").first().waitFor();

  // A count opens what it counts.
  await page.getByTestId("stat-Failed").click();
  await page.waitForURL(new RegExp(`/apps/${app}/instances\\?status=FAILED&from=`));
  await page.getByRole("row", { name: new RegExp(`e2e-bad-${suffix}`) }).first().waitFor();
});

test("an instance's log lines arrive through the subscription while it runs", async () => {
  const { page } = browser;
  // What the console reads and what is pushed to it, to tell pushed lines from read ones.
  const logReads = [];
  const pushedLines = [];
  page.on("response", async (res) => {
    const req = res.request();
    if (req.url().endsWith("/graphql") && req.method() === "POST" && /InstanceLogs\b/.test(req.postData() ?? "")) {
      const body = await res.json().catch(() => null);
      logReads.push(body?.data?.instance?.logs?.lines?.map((l) => l.seq) ?? []);
    }
  });
  page.on("websocket", (ws) => {
    ws.on("framereceived", ({ payload }) => {
      const text = String(payload);
      if (text.includes('"instanceLogs"')) pushedLines.push(JSON.parse(text).payload?.data?.instanceLogs?.text);
    });
  });

  slowInstance = await runJob(call, jobs.slow);
  await page.goto(`/apps/${app}/instances/${slowInstance}`);
  await page.getByRole("heading", { name: `Instance #${slowInstance}`, level: 2 }).waitFor();

  const log = page.getByTestId("log-lines");
  const line = (n) => log.getByRole("cell", { name: `line-${n}`, exact: true });
  const status = page.getByRole("heading", { level: 2 }).locator("..");
  await status.getByText("RUNNING", { exact: true }).waitFor({ timeout: runTimeout });
  await waitUntil(() => logReads.length === 1);
  // The first line the page did not read with the stored log arrives while
  // the instance is still RUNNING, pushed over the websocket.
  const stored = logReads[0].length;
  assert.ok(stored < 8, `the whole log was stored before the page read it (${stored} lines): nothing to stream`);
  await line(stored + 1).waitFor({ timeout: runTimeout });
  assert.equal(await line(8).count(), 0, "line-8 already there: the log did not stream");
  assert.ok(await status.getByText("RUNNING", { exact: true }).isVisible(), "still RUNNING while its lines arrive");
  assert.ok(pushedLines.includes(`line-${stored + 1}`), `line-${stored + 1} came over the websocket`);
  assert.equal(await page.getByText("live", { exact: true }).count(), 1);
  await shot(browser, "instance-log-live");

  // The status follows instanceUpdated; the log stays a single read plus the stream.
  await status.getByText("SUCCEEDED", { exact: true }).waitFor({ timeout: runTimeout });
  await line(8).waitFor();
  assert.ok(await line(8).isVisible(), "following keeps the newest line in view");
  assert.equal(logReads.length, 1, "the stored log was read once; the rest was pushed");
  for (let n = stored + 1; n <= 8; n++) assert.ok(pushedLines.includes(`line-${n}`), `line-${n} was pushed`);
  assert.equal(await log.getByRole("row").count(), 9, "the header and each line once");
  await shot(browser, "instance-succeeded");
});

test("the Instances list shows a new run and its end without reloading", async () => {
  const { page } = browser;
  await nav(page, "Instances").click();
  await page.waitForURL(new RegExp(`/apps/${app}/instances$`));
  await page.getByRole("row", { name: new RegExp(`#${slowInstance}\\b`) }).waitFor();
  const id = await runJob(call, jobs.ok);
  const row = page.getByRole("row", { name: new RegExp(`#${id}\\b`) });
  await row.filter({ hasText: "SUCCEEDED" }).waitFor({ timeout: runTimeout });
  assert.equal(await page.getByText(/Live updates interrupted/).count(), 0);
  await shot(browser, "instances-live");
});

test("a map-reduce instance shows its reduce result, its tasks by status and page, and a task in a drawer", async () => {
  const { page } = browser;
  // example.mapreduce (built into the agent) squares 1..30 in 30 subtasks and sums them.
  const { createJob } = await call(`mutation($input: JobInput!) { createJob(input: $input) { id } }`, {
    input: {
      app,
      name: `e2e-mapreduce-${suffix}`,
      scheduleType: "API",
      executionMode: "MAP_REDUCE",
      processorType: "GO",
      processor: "example.mapreduce",
      params: "30",
      timeoutMs: 60_000,
    },
  });
  mapReduceInstance = await runJob(call, createJob.id);
  assert.equal(await waitFinished(call, mapReduceInstance), "SUCCEEDED");
  await page.goto(`/apps/${app}/instances/${mapReduceInstance}`);
  await page
    .getByRole("region", { name: "Result of the reduce" })
    .getByText("sum of 30 squares = 9455")
    .waitFor();
  await page.getByText("100% done").waitFor();

  // ROOT, 30 MAP and REDUCE: 32 tasks, 20 a page, by id.
  const tasks = page.getByRole("region", { name: "Tasks", exact: true });
  const rows = tasks.getByRole("table", { name: "Tasks of this page" }).getByRole("row");
  await tasks.getByText("Page 1 of 2").waitFor();
  assert.equal(await rows.count(), 21, "a header and 20 tasks");
  assert.match(await rows.nth(1).innerText(), /ROOT/);
  await tasks.getByRole("button", { name: "Next" }).click();
  await tasks.getByText("Page 2 of 2").waitFor();
  await rows.filter({ hasText: "REDUCE" }).waitFor();
  assert.equal(await rows.count(), 13, "a header and the last 12 tasks");

  // The filter starts again at page 1, and is in the URL.
  // The segmented control's radio inputs are hidden behind their labels.
  await tasks.locator("label", { hasText: /^Failed \(0\)$/ }).click();
  await page.waitForURL(/taskStatus=failed/);
  await tasks.getByText("No failed tasks.").waitFor();
  await tasks.locator("label", { hasText: /^Succeeded \(32\)$/ }).click();
  await page.waitForURL(/taskStatus=succeeded$/);
  await tasks.getByText("Page 1 of 2").waitFor();

  // One subtask in the drawer: its payload (the number), result (its square), worker and times.
  const mapRow = rows.filter({ hasText: "MAP" }).first();
  const taskId = (await mapRow.getByRole("button").innerText()).replace("#", "");
  await mapRow.click();
  const drawer = page.getByRole("dialog", { name: `Task #${taskId}` });
  await drawer.waitFor();
  await page.waitForURL(new RegExp(`task=${taskId}`));
  const payload = drawer.getByRole("region", { name: "Payload" });
  const n = Number(await payload.locator("pre").innerText());
  assert.ok(n >= 1 && n <= 30, `payload ${n} is one of 1..30`);
  await drawer.getByRole("region", { name: "Result" }).getByText(String(n * n), { exact: true }).waitFor();
  assert.ok(await drawer.getByText("SUCCEEDED", { exact: true }).isVisible());
  assert.ok(await drawer.getByText("MAP", { exact: true }).isVisible(), "its kind");
  await shot(browser, "mapreduce-task-drawer");
  await page.keyboard.press("Escape");
  await drawer.waitFor({ state: "detached" });
  await shot(browser, "mapreduce-tasks");
});

test("the screens fit a 1024×768 laptop screen, and follow a dark OS", async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 1024, height: 768 });
  for (const path of [
    `/apps/${app}/dashboard`,
    `/apps/${app}/instances/${slowInstance}`,
    `/apps/${app}/instances/${mapReduceInstance}`,
    `/apps/${app}/settings`,
  ]) {
    await page.goto(path);
    await page.getByRole("heading", { level: 2 }).first().waitFor();
    // Every loading state gone (an instance page has several: the log, its tasks).
    await page.getByRole("status").first().waitFor({ state: "detached" });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${path} is ${overflow}px wider than the window`);
  }
  await page.goto(`/apps/${app}/dashboard`);
  await page.locator(".recharts-bar-rectangle").first().waitFor();
  await shot(browser, "dashboard-1024");

  await page.emulateMedia({ colorScheme: "dark" });
  await page.reload();
  await page.locator(".recharts-bar-rectangle").first().waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.mantineColorScheme), "dark");
  await shot(browser, "dashboard-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });
});
