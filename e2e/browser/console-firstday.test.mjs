// Browser test of what a new operator met on the first day (issue 16),
// against a running server whose app (APP) has a live agent running SHELL
// scripts: landing on the only app's dashboard, a 128-character job name
// that stays in its column and its dialog, the job form showing every
// error at once and keeping bad numbers as typed, a job's overview page
// (schedule, run now, outcomes, durations, alarm), a stopped instance
// drawn as stopped, heartbeat ages that tick, the "/" shortcut, and the
// GraphQL explorer working with no internet, as the logged-in user or
// with a pasted API token.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  adminPassword,
  api,
  app,
  baseURL,
  createViewer,
  logIn,
  nav,
  shot,
  suffix,
  useBrowser,
  waitFinished,
  waitUntil,
} from "./lib.mjs";

const browser = useBrowser();

let call;
/** 128 characters, the most a name may have, with no space to wrap at. */
const longName = `e2e-long-${suffix}-`.padEnd(128, "x");
const overviewName = `e2e-overview-${suffix}`;
let overviewJob = "";
let stoppedInstance = "";

test("setup: a job with the longest name, and a job that succeeded, failed and was stopped", async () => {
  call = await api("admin", adminPassword);
  await call(`mutation($input: JobInput!) { createJob(input: $input) { id } }`, {
    input: {
      app,
      name: longName,
      scheduleType: "CRON",
      scheduleExpression: "0 0/5 * * * ?",
      processorType: "SHELL",
      processor: "echo hi",
    },
  });
  const script =
    'if [ "$JOBWHEEL_INSTANCE_PARAMS" = fail ]; then echo failing; exit 3; fi\n' +
    'if [ "$JOBWHEEL_INSTANCE_PARAMS" = slow ]; then sleep 60; fi\nsleep 1\necho done';
  const { createJob } = await call(`mutation($input: JobInput!) { createJob(input: $input) { id } }`, {
    input: {
      app,
      name: overviewName,
      description: "Succeeds, unless told to fail or to take its time.",
      scheduleType: "FIXED_RATE",
      scheduleExpression: "1h",
      processorType: "SHELL",
      processor: script,
      maxInstances: 10,
      timeoutMs: 120_000,
      alarm: { onFailure: true, webhooks: ["http://127.0.0.1:9/ops"], emails: ["ops@example.com"], silenceSec: 300 },
    },
  });
  overviewJob = createJob.id;
  const run = async (params) =>
    (await call(`mutation($id: ID!, $p: String) { runJob(id: $id, params: $p) { id } }`, { id: overviewJob, p: params }))
      .runJob.id;
  const ok = await Promise.all([run(null), run(null)]);
  const failed = await run("fail");
  assert.deepEqual(await Promise.all([...ok, failed].map((id) => waitFinished(call, id))), ["SUCCEEDED", "SUCCEEDED", "FAILED"]);
  stoppedInstance = await run("slow");
  await waitUntil(async () => {
    const { instance } = await call(`query($id: ID!) { instance(id: $id) { status } }`, { id: stoppedInstance });
    return instance.status === "RUNNING";
  }, 30_000);
  await call(`mutation($id: ID!) { stopInstance(id: $id) { id } }`, { id: stoppedInstance });
  assert.equal(await waitFinished(call, stoppedInstance), "STOPPED");
});

test("logging in with one app lands on its dashboard", async () => {
  const { page } = browser;
  const { apps } = await call(`{ apps { name } }`);
  await page.goto("/");
  await logIn(page, "admin", adminPassword);
  if (apps.length === 1) await page.waitForURL(new RegExp(`/apps/${app}/dashboard$`));
  else await page.waitForURL(/\/apps$/);
});

test("a 128-character name stays in its column, its '?' with its cron, and '/' goes to the search", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/jobs`);
  const row = page.getByRole("row", { name: new RegExp(longName) });
  await row.waitFor();
  const name = row.getByRole("link", { name: longName, exact: true });
  const nameBox = await name.boundingBox();
  const switchBox = await row.getByRole("switch").boundingBox();
  assert.ok(nameBox.x + nameBox.width <= switchBox.x, `the name (to x=${nameBox.x + nameBox.width}) runs into the Enabled switch (x=${switchBox.x})`);
  const cron = row.getByText("0 0/5 * * * ?", { exact: true });
  const lineHeight = await cron.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 20);
  assert.ok((await cron.boundingBox()).height < lineHeight * 1.5, "the cron expression wraps");
  // The whole name is in its tooltip.
  await name.hover();
  await page.getByRole("tooltip").getByText(longName).waitFor();
  await shot(browser, "jobs-long-name");

  await page.mouse.move(0, 0);
  await page.keyboard.press("/");
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("type")), "search");
  await page.evaluate(() => document.activeElement?.blur());

  await row.getByRole("button", { name: `More actions for ${longName}` }).click();
  await page.getByRole("menuitem", { name: "Delete" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete job" });
  await dialog.waitFor();
  const dialogBox = await dialog.boundingBox();
  const inDialog = await dialog.getByText(longName, { exact: true }).boundingBox();
  assert.ok(inDialog.x + inDialog.width <= dialogBox.x + dialogBox.width, "the name runs past the dialog's edge");
  await shot(browser, "delete-long-name");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "detached" });
});

test("the job form shows every error at once and keeps bad numbers as typed", async () => {
  const { page } = browser;
  await page.getByRole("link", { name: "New job" }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs/new$`));
  const timeout = page.getByRole("textbox", { name: /^Timeout/ });
  await timeout.fill("-5");
  const maxInstances = page.getByRole("textbox", { name: /^Max instances/ });
  await maxInstances.fill("0");
  await maxInstances.blur();
  assert.equal(await timeout.inputValue(), "-5");
  assert.equal(await maxInstances.inputValue(), "0");

  await page.getByRole("button", { name: "Create job" }).click();
  await page.getByRole("textbox", { name: /^Name/ }).and(page.locator('[aria-invalid="true"]')).waitFor();
  const invalid = await page.locator('main [aria-invalid="true"]').evaluateAll((els) =>
    els.map((el) => el.getAttribute("aria-label") ?? el.labels?.[0]?.innerText ?? el.id),
  );
  assert.ok(invalid.length >= 4, `every field in error at once: ${invalid.join(", ")}`);
  await page.getByText("a SHELL job needs the script to run").waitFor();
  await page.getByText("-5 is negative; use 0 for no timeout").waitFor();
  await page.getByText(/^0 is out of range 1 to 10000/).waitFor();
  await shot(browser, "job-form-all-errors");
  await page.getByText(/needs a Quartz cron expression/).scrollIntoViewIfNeeded();
});

test("a job's page shows its schedule, outcomes, durations and alarm, and runs it now", async () => {
  const { page } = browser;
  await nav(page, "Jobs").click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs$`));
  await page.getByRole("link", { name: overviewName, exact: true }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs/${overviewJob}$`));
  await page.getByRole("heading", { name: `Job ${overviewName}`, level: 2 }).waitFor();
  assert.match(await page.getByRole("region", { name: "Schedule" }).innerText(), /Fixed rate[\s\S]*1h[\s\S]*Next fires/i);
  const success = page.getByRole("region", { name: "Success rate" });
  assert.match(await success.innerText(), /67%[\s\S]*2 succeeded[\s\S]*1 failed[\s\S]*1 stopped/);
  assert.match(await page.getByRole("region", { name: "Alarm" }).innerText(), /ops@example\.com/);
  await page.getByTestId("runs-chart").locator(".recharts-bar-rectangle").first().waitFor();
  await page.getByTestId("outcomes-chart").locator(".recharts-bar-rectangle").first().waitFor();
  const latest = page.getByRole("region", { name: "Latest runs" });
  assert.equal(await latest.getByRole("row").count(), 1 + 4);
  await shot(browser, "job-overview");

  // Run now, and the new run shows among the latest without a reload.
  await page.getByRole("button", { name: `Run ${overviewName} now` }).click();
  const dialog = page.getByRole("dialog", { name: `Run ${overviewName}` });
  await dialog.getByRole("button", { name: "Run", exact: true }).click();
  await dialog.getByRole("button", { name: "Close" }).click();
  await waitUntil(async () => (await latest.getByRole("row").count()) === 1 + 5, 30_000);
  await latest.getByText("SUCCEEDED").nth(2).waitFor({ timeout: 30_000 });

  await page.emulateMedia({ colorScheme: "dark" });
  await shot(browser, "job-overview-dark");
  await page.emulateMedia({ colorScheme: "light" });
});

test("a stopped instance is drawn as stopped, and its worker's heartbeat age ticks", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/instances/${stoppedInstance}`);
  await page.getByRole("heading", { name: `Instance #${stoppedInstance}`, level: 2 }).waitFor();
  await page.getByText("1 stopped", { exact: true }).waitFor();
  assert.equal(await page.getByText("1 failed", { exact: true }).count(), 0);
  assert.match(await page.getByRole("region", { name: "Result" }).innerText(), /log below/);
  const age = page.getByText(/^heartbeat /);
  const first = await age.innerText();
  await waitUntil(async () => (await age.innerText()) !== first, 15_000);
  await shot(browser, "instance-stopped");
});

test("the GraphQL explorer works with no internet, as the logged-in user", async () => {
  const { page, context } = browser;
  const outside = [];
  // No internet: anything not from this server fails, and is noted.
  const elsewhere = (url) => url.origin !== baseURL;
  await context.route(elsewhere, (route) => {
    outside.push(route.request().url());
    return route.abort("internetdisconnected");
  });
  try {
    await page.getByRole("banner").getByRole("button", { name: /^Account: / }).click();
    await page.getByRole("menuitem", { name: "GraphQL explorer" }).click();
    await page.waitForURL(/\/graphiql$/);
    const run = page.getByRole("button", { name: /^Execute query/ });
    // The editors are ready once the query shows in them.
    await page.locator(".graphiql-query-editor").getByText("username").waitFor();
    await run.click();
    const response = page.locator(".graphiql-response");
    await waitUntil(async () => /"username": "admin"/.test(await response.innerText()), 15_000);
    await shot(browser, "graphiql");

    // Docs loads the schema (GraphiQL's introspection query nests 15 levels
    // deep) and shows its types and their fields.
    await page.getByRole("button", { name: "Show Documentation Explorer" }).click();
    const docs = page.getByRole("region", { name: "Documentation Explorer" });
    await docs.getByText("Root Types").waitFor();
    await docs.locator(".graphiql-doc-explorer-type-name", { hasText: /^Query$/ }).first().click();
    await docs.getByText("apps", { exact: true }).first().waitFor();
    assert.doesNotMatch(await docs.innerText(), /Error fetching schema/);
    await shot(browser, "graphiql-docs");

    // With another user's API token pasted in, it runs as that user.
    const tokenUser = `e2e-gq-${suffix}`;
    await createViewer(call, tokenUser, "password-1");
    const asTokenUser = await api(tokenUser, "password-1");
    const { createApiToken } = await asTokenUser(`mutation($n: String!) { createApiToken(name: $n) { secret } }`, {
      n: "explorer",
    });
    await page.getByLabel("API token").fill(createApiToken.secret);
    await page.getByText("Runs with this token.").waitFor();
    await page.locator(".graphiql-query-editor").getByText("username").waitFor();
    await page.getByRole("button", { name: /^Execute query/ }).click();
    await waitUntil(
      async () => new RegExp(`"username": "${tokenUser}"`).test(await page.locator(".graphiql-response").innerText()),
      15_000,
    );
    assert.deepEqual(outside, [], "the explorer asked the internet for something");
  } finally {
    await context.unroute(elsewhere);
  }
});
