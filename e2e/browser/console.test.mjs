// Browser test of the console's Jobs, Instances and Workers screens against
// a running server that has an app with a live agent connected: pick the
// app, create a job (watching the schedule preview and a field error), run
// it, watch its log arrive live, see it succeed, and see the agent alive.
//
// It drives Debian's Chromium through playwright-core; it never downloads a
// browser. Environment:
//   BASE_URL        the server, e.g. http://127.0.0.1:7711 (required)
//   ADMIN_PASSWORD  the password of user "admin" (required)
//   APP             the app, with a live agent running SHELL scripts
//                   (default "orders")
//   OUTPUT_DIR      where a screenshot of each step is saved
//                   (default: output/ beside this file)
//   CHROMIUM        the browser (default /usr/bin/chromium)
//
// Run: node --test e2e/browser/console.test.mjs (or `node` on the file),
// after `npm ci` in this directory. It exits non-zero if any step fails or
// the browser console reports an error or warning.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";

function env(name) {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see the top of ${import.meta.filename})`);
  return value;
}

const baseURL = env("BASE_URL").replace(/\/+$/, "");
const adminPassword = env("ADMIN_PASSWORD");
const app = process.env.APP || "orders";
const outputDir = process.env.OUTPUT_DIR || join(import.meta.dirname, "output");
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";

const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

// Unique per run, so the test can run again against the same server.
const suffix = Date.now().toString(36);
const cronJob = `e2e-cron-${suffix}`;
const shellJob = `e2e-shell-${suffix}`;
const script = "for i in 1 2 3 4 5; do echo line-$i; sleep 1; done";

// The instance waits for a worker, runs five seconds and reports back.
const runTimeout = 60_000;

let browser;
let context;
let page;
let shotCount = 0;
/** Console errors and warnings and uncaught exceptions, by test. */
let problems = [];
/** The instance the test runs, as /apps/<app>/instances/<id>. */
let instancePath = "";

async function shot(name) {
  shotCount += 1;
  const path = join(outputDir, `${String(shotCount).padStart(2, "0")}-${name}.png`);
  // From the top: a full-page shot of a scrolled page draws the fixed header mid-page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot ${path}`);
}

function path() {
  const url = new URL(page.url());
  return url.pathname + url.search;
}

/** Chooses an option of a Mantine Select by its label. */
async function choose(scope, label, option) {
  await scope.getByRole("textbox", { name: label, exact: true }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

function nav(name) {
  return page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
}

before(async () => {
  mkdirSync(outputDir, { recursive: true });
  browser = await chromium.launch({ executablePath, args: chromiumArgs, headless: true });
  console.log(`ran in Chromium ${browser.version()} (${executablePath})`);
  context = await browser.newContext({
    baseURL,
    viewport: { width: 1280, height: 800 },
    colorScheme: "light",
    reducedMotion: "reduce",
    timezoneId: "Europe/Berlin",
  });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") {
      problems.push(`console ${msg.type()}: ${msg.text()} (${msg.location().url})`);
    }
  });
  page.on("pageerror", (err) => problems.push(`uncaught: ${err.message}`));
});

test.afterEach(() => {
  const found = problems;
  problems = [];
  assert.deepEqual(found, [], "the browser console reported problems");
});

after(async () => {
  await browser?.close();
});

test("the admin logs in and picks the app in the header, then Jobs", async () => {
  await page.goto("/");
  await page.getByLabel("Username", { exact: true }).fill("admin");
  await page.getByLabel("Password", { exact: true }).fill(adminPassword);
  await page.getByRole("button", { name: "Log in" }).click();
  // With one app the console opens its dashboard, else the list of apps.
  await page.waitForURL(new RegExp(`/apps(/${app}/dashboard)?$`));
  await nav("Apps").click();
  await page.waitForURL(/\/apps$/);

  const navLabels = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts();
  assert.deepEqual(navLabels, [
    "Apps",
    "Overview",
    "Reports",
    "Dashboard",
    "Jobs",
    "Instances",
    "Workflows",
    "Calendars",
    "Pools",
    "Workers",
    "Settings",
    "Audit",
    "Servers",
    "Users",
    "API tokens",
  ]);

  // Picking an app opens its dashboard.
  await choose(page.getByRole("banner"), "App", app);
  await page.waitForURL(new RegExp(`/apps/${app}/dashboard$`));
  await nav("Jobs").click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs$`));
  await page.getByRole("heading", { name: "Jobs", level: 2 }).waitFor();
  await page.getByRole("status").waitFor({ state: "detached" });
  await nav("Jobs").and(page.locator('[aria-current="page"]')).waitFor();
  await shot("jobs");
});

test("the job form previews the next five fires as a cron expression is typed", async () => {
  await page.getByRole("link", { name: "New job" }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs/new$`));
  await page.getByLabel(/^Name\b/).fill(cronJob);
  await page.getByLabel("Cron expression").fill("0 0/5 * * * ?");

  const preview = page.getByTestId("schedule-preview");
  await preview.getByRole("row").nth(4).waitFor();
  assert.equal(await preview.getByRole("row").count(), 5);
  // In the job's zone (the browser's, Europe/Berlin, for a new job) and in UTC.
  const header = await page.getByRole("region", { name: "Next fires" }).getByRole("columnheader").allInnerTexts();
  assert.deepEqual(header, ["Europe/Berlin", "UTC"]);
  await shot("job-form-preview");
});

test("a bad cron expression shows the server's error at the field", async () => {
  const expression = page.getByLabel("Cron expression");
  await expression.fill("0 0/5 * * *");
  await page.locator("input[aria-invalid=true]").waitFor();
  assert.equal(await expression.getAttribute("aria-invalid"), "true");
  const describedBy = (await expression.getAttribute("aria-describedby")) ?? "";
  const errorId = describedBy.split(" ").find((id) => id.endsWith("-error"));
  assert.ok(errorId, "the expression's error is tied to it");
  assert.match(await page.locator(`[id="${errorId}"]`).innerText(), /6 or 7 fields/);
  await shot("job-form-bad-cron");

  // Fixed again, the error goes and the preview comes back.
  await expression.fill("0 0/5 * * * ?");
  await page.getByTestId("schedule-preview").getByRole("row").nth(4).waitFor();
  assert.notEqual(await expression.getAttribute("aria-invalid"), "true");
  await page.getByRole("button", { name: "Cancel" }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs$`));
});

test("an API-triggered SHELL job is created", async () => {
  await page.getByRole("link", { name: "New job" }).click();
  await page.getByLabel(/^Name\b/).fill(shellJob);
  await page.getByLabel("Description").fill("Echoes five lines, a second apart");
  await choose(page, "Schedule type", "API only");
  await page.getByText("This job fires only when it is run").waitFor();

  const editor = page.getByRole("textbox", { name: "Shell script" });
  await editor.click();
  await page.keyboard.insertText(script);
  assert.equal(await editor.innerText(), script);
  await page.getByLabel("Timeout (ms)").fill("60000");
  await shot("job-form-shell");

  await page.getByRole("button", { name: "Create job" }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs$`));
  const row = page.getByRole("row", { name: new RegExp(shellJob) });
  await row.waitFor();
  assert.match(await row.innerText(), /API only/i);
  assert.match(await row.innerText(), /Shell script/);
  await shot("jobs-with-new-job");
});

test("running the job links to its new instance", async () => {
  await page.getByRole("button", { name: `Run ${shellJob} now` }).click();
  const dialog = page.getByRole("dialog", { name: `Run ${shellJob}` });
  await dialog.getByLabel("Parameters").fill('{"from":"e2e"}');
  await dialog.getByRole("button", { name: "Run", exact: true }).click();
  const open = dialog.getByRole("link", { name: /^Open instance #\d+$/ });
  await open.waitFor();
  await shot("run-job-started");
  await open.click();
  await page.waitForURL(new RegExp(`/apps/${app}/instances/\\d+$`));
  instancePath = new URL(page.url()).pathname;
  await page.getByRole("heading", { name: /^Instance #\d+$/, level: 2 }).waitFor();
});

test("the instance's log lines arrive live, and it succeeds", async () => {
  const log = page.getByTestId("log-lines");
  const line = (n) => log.getByRole("cell", { name: `line-${n}`, exact: true });

  // The lines come while the script runs: the first is on screen before the last was written.
  await line(1).waitFor({ timeout: runTimeout });
  const beforeLast = await line(5).count();
  assert.equal(beforeLast, 0, "line-5 was already there when line-1 arrived: the log did not stream");
  // The page refreshes the status on its own while the script runs.
  await page.getByRole("heading", { level: 2 }).locator("..").getByText("RUNNING", { exact: true }).first()
    .waitFor({ timeout: runTimeout });
  await shot("instance-running");

  for (const n of [2, 3, 4, 5]) await line(n).waitFor({ timeout: runTimeout });
  await page.getByText("SUCCEEDED", { exact: true }).first().waitFor({ timeout: runTimeout });
  // Following keeps the newest line in view.
  assert.ok(await line(5).isVisible());
  assert.match(await page.getByText(/^\d+ lines$/).innerText(), /^\d+ lines$/);
  await page.getByRole("button", { name: "Retry" }).waitFor({ state: "detached" });
  assert.equal(await page.getByRole("button", { name: "Stop" }).count(), 0);
  await shot("instance-succeeded");

  // Narrowing the log by text.
  await page.getByLabel("Search the log").fill("line-3");
  await log.getByRole("row").nth(1).waitFor();
  assert.equal(await log.getByRole("row").count(), 2, "the header and the one matching line");
  await shot("instance-log-search");
  await page.getByLabel("Search the log").fill("");
});

test("Instances lists the run, filtered by status in the URL", async () => {
  await nav("Instances").click();
  await page.waitForURL(new RegExp(`/apps/${app}/instances$`));
  const id = instancePath.split("/").at(-1);
  const row = page.getByRole("row", { name: new RegExp(`#${id}\\b`) });
  // The list refreshes itself; the run shows as SUCCEEDED once it has.
  await row.filter({ hasText: "SUCCEEDED" }).waitFor({ timeout: runTimeout });
  assert.match(await row.innerText(), new RegExp(shellJob));
  assert.match(await row.innerText(), /API/);

  await page.getByRole("textbox", { name: "Status", exact: true }).click();
  await page.getByRole("option", { name: "SUCCEEDED", exact: true }).click();
  await page.keyboard.press("Escape");
  await page.waitForURL(/[?&]status=SUCCEEDED\b/);
  await row.waitFor();
  await shot("instances");

  // The URL is the list: opening it anew shows the same filter.
  await page.goto(path());
  await page.getByRole("row", { name: new RegExp(`#${id}\\b`) }).waitFor();
  await row.click();
  await page.waitForURL(new RegExp(`${instancePath}$`));
  await page.getByRole("heading", { name: `Instance #${id}`, level: 2 }).waitFor();
});

test("Jobs shows the job's last run, linked to it", async () => {
  await nav("Jobs").click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs$`));
  const id = instancePath.split("/").at(-1);
  const last = page
    .getByRole("row", { name: new RegExp(shellJob) })
    .getByRole("link", { name: `Instance #${id}: SUCCEEDED` });
  await last.waitFor({ timeout: runTimeout });
  await shot("jobs-last-run");
  await last.click();
  await page.waitForURL(new RegExp(`${instancePath}$`));
  await page.getByRole("heading", { name: `Instance #${id}`, level: 2 }).waitFor();
});

test("Workers shows the agent alive", async () => {
  await nav("Workers").click();
  await page.waitForURL(new RegExp(`/apps/${app}/workers$`));
  const alive = page.getByRole("table").getByRole("row").filter({ has: page.getByText("alive", { exact: true }) });
  await alive.first().waitFor();
  assert.ok((await alive.count()) >= 1);
  assert.match(await alive.first().innerText(), /SHELL/);
  await shot("workers");

  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(instancePath);
  await page.getByTestId("log-lines").waitFor();
  await shot("instance-dark");
  await page.emulateMedia({ colorScheme: "light" });
});
