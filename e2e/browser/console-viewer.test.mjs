// Browser test of what a VIEWER sees, against a running server whose app
// (APP) has a live agent: the test creates a user through the API as the
// admin (createUser, then setAppRole(APP, user, VIEWER)), logs in as that
// user, and checks that the Dashboard, Jobs, a job, an instance and the
// app's Settings show no button that would change anything, that Users is
// not in the navbar, and that the server refuses a change all the same.
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
  createViewer,
  editControls,
  logIn,
  nav,
  runJob,
  shot,
  suffix,
  useBrowser,
  waitFinished,
} from "./lib.mjs";

const browser = useBrowser();
const viewer = `viewer-${suffix}`;
const viewerPassword = `pw-${suffix}-viewer`;
const jobName = `e2e-viewed-${suffix}`;
let jobId = "";
let instanceId = "";

test("setup: the admin creates a VIEWER of the app, and a job that has failed", async () => {
  const admin = await api("admin", adminPassword);
  await createViewer(admin, viewer, viewerPassword);
  jobId = await createShellJob(admin, jobName, "echo checking\nexit 1");
  instanceId = await runJob(admin, jobId);
  assert.equal(await waitFinished(admin, instanceId), "FAILED");
});

test("the viewer logs in and sees the dashboard, without Users in the navbar", async () => {
  const { page } = browser;
  await page.goto("/");
  await logIn(page, viewer, viewerPassword);
  // Their only app: they land on its dashboard.
  await page.waitForURL(new RegExp(`/apps/${app}/dashboard$`));
  await nav(page, "Apps").click();
  await page.waitForURL(/\/apps$/);
  assert.equal(await page.getByRole("button", { name: "Create app" }).count(), 0);
  const row = page.getByRole("row", { name: new RegExp(app) });
  assert.match(await row.innerText(), /VIEWER/);
  await row.getByRole("link", { name: app }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/dashboard$`));
  await page.getByTestId("stat-Jobs").waitFor();
  // The chart loads on its own; the failed run is in it.
  await page.locator(".recharts-bar-rectangle").first().waitFor();
  const labels = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts();
  assert.deepEqual(labels, ["Apps", "Overview", "Reports", "Dashboard", "Jobs", "Instances", "Workflows", "Calendars", "Pools", "Workers", "Settings", "Audit", "Servers", "API tokens"]);
  assert.deepEqual(await editControls(page), []);
  assert.equal(await page.getByRole("link", { name: "Create one" }).count(), 0);
  await shot(browser, "viewer-dashboard");
});

test("Jobs lists the jobs with no new, run, edit, delete or enable control", async () => {
  const { page } = browser;
  await nav(page, "Jobs").click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs$`));
  const row = page.getByRole("row", { name: new RegExp(jobName) });
  await row.waitFor();
  assert.match(await row.innerText(), /enabled/i);
  assert.deepEqual(await editControls(page), []);
  await shot(browser, "viewer-jobs");
});

test("a job opens read-only, with nothing to save", async () => {
  const { page } = browser;
  await page.getByRole("row", { name: new RegExp(jobName) }).getByRole("link", { name: jobName, exact: true }).click();
  // Its overview, with no run, enable, duplicate or delete…
  await page.waitForURL(new RegExp(`/apps/${app}/jobs/${jobId}$`));
  await page.getByRole("heading", { name: `Job ${jobName}`, level: 2 }).waitFor();
  await page.getByRole("region", { name: "Success rate" }).waitFor();
  assert.deepEqual(await editControls(page), []);
  await shot(browser, "viewer-job-overview");
  // …and its definition, read-only.
  await page.getByRole("tab", { name: "Definition" }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs/${jobId}/edit$`));
  await page.getByRole("heading", { name: `Job ${jobName}`, level: 2 }).waitFor();
  assert.ok(await page.getByLabel(/^Name/).isDisabled(), "the name cannot be edited");
  const script = page.getByRole("textbox", { name: "Shell script" });
  await script.waitFor();
  assert.equal(await script.getAttribute("contenteditable"), "false");
  assert.deepEqual(await editControls(page), []);
  assert.equal(await page.getByRole("button", { name: /^(Save job|Cancel)$/ }).count(), 0);
  await shot(browser, "viewer-job");
});

test("an instance shows no stop or retry", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/instances/${instanceId}`);
  await page.getByRole("heading", { name: `Instance #${instanceId}`, level: 2 }).waitFor();
  await page.getByRole("heading", { level: 2 }).locator("..").getByText("FAILED", { exact: true }).waitFor();
  await page.getByTestId("log-lines").getByRole("cell", { name: "checking", exact: true }).waitFor();
  assert.deepEqual(await editControls(page), []);
  await shot(browser, "viewer-instance");
});

test("Settings lists the members, with nothing to change", async () => {
  const { page } = browser;
  await nav(page, "Settings").click();
  await page.waitForURL(new RegExp(`/apps/${app}/settings$`));
  const members = page.getByRole("table", { name: "Members" });
  await members.getByRole("row", { name: new RegExp(viewer) }).waitFor();
  assert.match(await members.getByRole("row", { name: new RegExp(viewer) }).innerText(), /VIEWER/);
  assert.equal(await page.getByRole("main").getByRole("textbox").count(), 0, "no role selects or member form");
  assert.equal(await page.getByRole("main").getByRole("button").count(), 0);
  assert.deepEqual(await editControls(page), []);
  await page.getByText(/Only its owners can change members/).waitFor();
  await shot(browser, "viewer-settings");
});

test("the server refuses the viewer's change all the same", async () => {
  const { page } = browser;
  // With the viewer's session cookie, as the console would send it.
  const answer = await page.evaluate(async (id) => {
    const res = await fetch("/graphql", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: "mutation($id: ID!) { runJob(id: $id) { id } }", variables: { id } }),
    });
    return res.json();
  }, jobId);
  assert.equal(answer.errors?.[0]?.extensions?.code, "FORBIDDEN");

  // A users page typed in by hand says what it is for.
  await page.goto("/users");
  await page.getByText("Only administrators can see and create users.").waitFor();
  await shot(browser, "viewer-users-refused");
});
