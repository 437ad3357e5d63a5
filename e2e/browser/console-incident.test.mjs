// Browser test of what an operator relies on mid-incident (issue 28),
// against a running server whose app (APP) has a live agent running SHELL
// scripts: a failed instance retried from its page has its log follow the
// new attempt live, under a separator per attempt, without a reload; the
// Run now dialog follows the instance it started to its end, as the
// instance page does, whose log is the first thing under its details while
// it runs; the job form describes a cron expression in words, in Chinese
// when the console speaks Chinese.
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
  runJob,
  shot,
  suffix,
  useBrowser,
  waitFinished,
} from "./lib.mjs";

const browser = useBrowser({ viewport: { width: 1440, height: 900 } });
const runTimeout = 60_000;

let call;
const jobs = {};

test("setup: a job that fails its first attempt and runs slowly on a retry, and a slow job", async () => {
  call = await api("admin", adminPassword);
  jobs.retried = await createShellJob(
    call,
    `e2e-retried-${suffix}`,
    [
      'echo "attempt-$JOBWHEEL_ATTEMPT starts"',
      'if [ "$JOBWHEEL_ATTEMPT" = "1" ]; then echo "attempt-1 fails"; exit 3; fi',
      'for i in 1 2 3 4 5 6; do echo "retry-line-$i"; sleep 1; done',
    ].join("\n"),
  );
  // Slow enough to be still running while the checks of a running
  // instance's page are made on a loaded machine (4 s was not: CI saw the
  // run end first, and its result move above the log).
  jobs.slow = await createShellJob(call, `e2e-slow-${suffix}`, "echo started; sleep 15; echo done");
});

test("a retried instance's log follows the new attempt live, under a separator per attempt", async () => {
  const { page } = browser;
  // The stored log is read once: everything after comes over the websocket.
  let logReads = 0;
  page.on("request", (req) => {
    if (req.url().endsWith("/graphql") && req.method() === "POST" && /InstanceLogs\b/.test(req.postData() ?? "")) logReads++;
  });

  const id = await runJob(call, jobs.retried);
  assert.equal(await waitFinished(call, id), "FAILED");
  await page.goto(`/apps/${app}/instances/${id}`);
  await logIn(page, "admin", adminPassword);
  const heading = page.getByRole("heading", { name: `Instance #${id}`, level: 2 });
  await heading.waitFor();
  const status = heading.locator("..");
  const log = page.getByTestId("log-lines");
  const cell = (text) => log.getByRole("cell", { name: text, exact: true });
  await cell("attempt-1 fails").waitFor();
  assert.equal(await page.getByTestId("attempt-separator").count(), 0, "one attempt: no separator yet");
  assert.ok(await page.getByRole("switch", { name: "Follow" }).isChecked(), "following by default");
  const readsBefore = logReads;

  await page.getByRole("button", { name: "Retry", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Retry instance" });
  await dialog.getByRole("button", { name: "Retry instance" }).click();
  await dialog.waitFor({ state: "hidden" });

  // The new attempt's lines arrive while it runs, with no reload.
  await cell("retry-line-1").waitFor({ timeout: runTimeout });
  assert.ok(await status.getByText("RUNNING", { exact: true }).isVisible(), "still RUNNING while its lines arrive");
  assert.equal(await cell("retry-line-6").count(), 0, "the whole retry was there at once: nothing followed");
  assert.deepEqual(await page.getByTestId("attempt-separator").allInnerTexts(), ["Attempt 1", "Attempt 2"]);
  await shot(browser, "retried-log-live");

  await cell("retry-line-6").waitFor({ timeout: runTimeout });
  await status.getByText("SUCCEEDED", { exact: true }).waitFor({ timeout: runTimeout });
  assert.ok(await cell("retry-line-6").isVisible(), "following keeps the newest line in view");
  // Each line once, in order, the second attempt after its separator.
  const rows = (await log.getByRole("row").allInnerTexts()).slice(1).map((r) => r.replace(/\s+/g, " ").trim());
  const texts = rows
    .map((r) => (r.startsWith("Attempt ") ? r : r.split(" ").slice(4).join(" ")))
    .filter((r) => /^(Attempt \d|attempt-\d|retry-line-)/.test(r));
  assert.deepEqual(texts, [
    "Attempt 1",
    "attempt-1 starts",
    "attempt-1 fails",
    "Attempt 2",
    "attempt-2 starts",
    ...[1, 2, 3, 4, 5, 6].map((n) => `retry-line-${n}`),
  ]);
  assert.equal(logReads, readsBefore, "the retry's lines were pushed, not read again");
  // Both attempts listed; the current one's result is not repeated there.
  await page.getByRole("heading", { name: "Attempts" }).waitFor();
  await shot(browser, "retried-succeeded");
});

test("the Run now dialog follows the instance it started, and its page shows it live, log first", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/jobs/${jobs.slow}`);
  await page.getByRole("button", { name: `Run e2e-slow-${suffix} now` }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("button", { name: "Run", exact: true }).click();
  const started = dialog.getByRole("status");
  await started.waitFor();
  const id = /#(\d+)/.exec(await started.innerText())?.[1];
  assert.ok(id, "the dialog names the instance");
  // The dialog moves on with the instance, as the rest of the console does.
  await started.getByText(/is running/).waitFor({ timeout: runTimeout });
  await shot(browser, "run-now-running");
  await started.getByText(/is succeeded/).waitFor({ timeout: runTimeout });
  await dialog.getByRole("button", { name: "Close" }).click();

  // A new run's page, opened at once: status, start and worker follow.
  const next = await runJob(call, jobs.slow);
  await page.goto(`/apps/${app}/instances/${next}`);
  const heading = page.getByRole("heading", { name: `Instance #${next}`, level: 2 });
  await heading.waitFor();
  await heading.locator("..").getByText("RUNNING", { exact: true }).waitFor({ timeout: runTimeout });
  // Its worker, as soon as it runs (a badge says the worker is alive).
  await page.getByText("alive", { exact: true }).waitFor();
  await page.getByTestId("log-lines").getByRole("cell", { name: "started", exact: true }).waitFor();
  // The log comes before the parameters and result, within the first screen.
  const logBox = await page.getByRole("heading", { name: "Log", exact: true }).boundingBox();
  const resultBox = await page.getByRole("heading", { name: "Result", exact: true }).boundingBox();
  assert.ok(logBox && resultBox && logBox.y < resultBox.y, "the log is above the result while it runs");
  assert.ok(logBox.y < 900, `the log starts within the first screen (at ${logBox.y}px)`);
  await shot(browser, "instance-running-log-first");
  await heading.locator("..").getByText("SUCCEEDED", { exact: true }).waitFor({ timeout: runTimeout });
});

test("the job form says a cron expression in words, in the console's language", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/jobs/new`);
  const expression = page.getByPlaceholder("0 0/5 * * * ?");
  await expression.fill("0 0/5 * * * ?");
  const words = page.getByTestId("cron-description");
  await words.getByText("Every 5 minutes", { exact: true }).waitFor();
  await page.getByRole("button", { name: "Common schedules" }).click();
  await page.getByRole("menuitem", { name: /Weekdays at 09:00/ }).click();
  await words.getByText("At 09:00, Monday through Friday", { exact: true }).waitFor();
  await shot(browser, "cron-helper");

  await page.evaluate(() => localStorage.setItem("jobwheel.language", "zh-CN"));
  try {
    await page.reload();
    await page.getByPlaceholder("0 0/5 * * * ?").fill("0 0/5 * * * ?");
    await page.getByTestId("cron-description").getByText("每隔 5 分钟", { exact: true }).waitFor();
    await shot(browser, "cron-helper-zh-CN");
  } finally {
    await page.evaluate(() => localStorage.setItem("jobwheel.language", "en"));
  }
});
