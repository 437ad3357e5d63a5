// Browser test of the Calendars screen against a running server: the admin
// creates a calendar with a holiday (after the form refuses a date that is
// not one), picks it for a new CRON job in the job form, where the schedule
// preview (previewSchedule) drops the holiday's fire, saves the job (the
// server's next fires skip it too), sees the job listed under the calendar,
// and is refused deleting a calendar in use; a VIEWER then sees the
// calendar and its dates with nothing to change them.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  adminPassword,
  api,
  app,
  createViewer,
  editControls,
  logIn,
  logOut,
  nav,
  shot,
  suffix,
  useBrowser,
  waitUntil,
} from "./lib.mjs";

const browser = useBrowser();
const calendar = `holidays-${suffix}`;
const jobName = `e2e-calendar-${suffix}`;
const viewer = `cal-viewer-${suffix}`;
const viewerPassword = `pw-${suffix}-viewer`;
// The job fires every day at noon in the browser's zone (a new job's zone).
const zone = "Europe/Berlin";
const cron = "0 0 12 * * ?";

/** The date in `zone`, YYYY-MM-DD, `days` days from now. */
function dateIn(days) {
  return new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(new Date(Date.now() + days * 86_400_000));
}
// Two days ahead: always among the next five noon fires.
const holiday = dateIn(2);
const dayAfter = dateIn(3);

/** The schedule preview's text (both zones' columns). */
async function previewText(page) {
  return page.getByTestId("schedule-preview").innerText();
}

/** Chooses an option of a Mantine Select by its label. */
async function choose(page, label, option) {
  await page.getByRole("textbox", { name: label, exact: true }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

test("the admin creates a calendar with a holiday on the Calendars screen", async () => {
  const { page } = browser;
  await page.goto("/");
  await logIn(page, "admin", adminPassword);
  await page.goto(`/apps/${app}/dashboard`);
  await nav(page, "Calendars").click();
  await page.waitForURL(new RegExp(`/apps/${app}/calendars$`));
  await page.getByRole("heading", { name: "Calendars", level: 2 }).waitFor();

  await page.getByRole("button", { name: "New calendar" }).click();
  const dialog = page.getByRole("dialog", { name: "New calendar" });
  await dialog.getByLabel(/^Name/).fill(calendar);
  await dialog.getByLabel("Description").fill("Days off");
  const dates = dialog.getByLabel(/^Excluded dates/);
  // Not a date: refused in the form, nothing sent.
  await dates.fill(`${holiday}\n31.12.2026`);
  await dialog.getByRole("button", { name: "Create calendar" }).click();
  await dialog.getByText("Not a date such as 2026-12-25: 31.12.2026").waitFor();
  await shot(browser, "calendar-bad-date");

  await dates.fill(holiday);
  await dialog.getByRole("button", { name: "Create calendar" }).click();
  await dialog.waitFor({ state: "detached" });
  const row = page.getByRole("row", { name: new RegExp(calendar) });
  await row.waitFor();
  assert.match(await row.innerText(), new RegExp(holiday));
  assert.match(await row.innerText(), /no job/);
  await shot(browser, "calendars");
});

test("a CRON job that picks the calendar previews no fire on the holiday, and saves", async () => {
  const { page } = browser;
  await nav(page, "Jobs").click();
  await page.getByRole("link", { name: "New job" }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs/new$`));
  await page.getByLabel(/^Name\b/).fill(jobName);
  await page.getByLabel("Cron expression").fill(cron);
  const editor = page.getByRole("textbox", { name: "Shell script" });
  await editor.click();
  await page.keyboard.insertText("echo day off or not");

  // Without a calendar, the holiday's noon is among the next five fires…
  await waitUntil(async () => (await previewText(page)).includes(`${holiday} 12:00:00`));
  // …with it, the preview asks previewSchedule again and it is gone.
  await choose(page, "Calendar of excluded dates", `${calendar} (1 date)`);
  await waitUntil(async () => {
    const text = await previewText(page);
    return !text.includes(holiday) && text.includes(`${dayAfter} 12:00:00`);
  });
  assert.equal(await page.getByTestId("schedule-preview").getByRole("row").count(), 5);
  await shot(browser, "job-form-calendar-preview");

  await page.getByRole("button", { name: "Create job" }).click();
  await page.waitForURL(new RegExp(`/apps/${app}/jobs$`));
  await page.getByRole("row", { name: new RegExp(jobName) }).waitFor();

  // The server's own next fires for the saved job skip the date as well.
  const admin = await api("admin", adminPassword);
  const { jobs } = await admin(
    `query($app: String!, $q: String) { jobs(app: $app, search: $q) { edges { node { name calendar { name } upcoming(count: 5) } } } }`,
    { app, q: jobName },
  );
  const job = jobs.edges[0].node;
  assert.equal(job.calendar?.name, calendar);
  const days = job.upcoming.map((t) => new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(new Date(t)));
  assert.ok(!days.includes(holiday), `upcoming fires ${days} include the holiday ${holiday}`);
  assert.ok(days.includes(dayAfter), `upcoming fires ${days} miss ${dayAfter}`);
});

test("the calendar lists its job, and cannot be deleted while the job uses it", async () => {
  const { page } = browser;
  await nav(page, "Calendars").click();
  const row = page.getByRole("row", { name: new RegExp(calendar) });
  await row.getByRole("link", { name: jobName }).waitFor();
  await row.getByRole("button", { name: `Delete ${calendar}` }).click();
  const dialog = page.getByRole("dialog", { name: "Delete calendar" });
  await dialog.getByRole("button", { name: "Delete calendar" }).click();
  const alert = dialog.getByRole("alert");
  await alert.waitFor();
  assert.match(await alert.innerText(), new RegExp(jobName));
  await shot(browser, "calendar-in-use");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await logOut(page);
});

test("a VIEWER sees the calendar and its dates, and nothing to change them", async () => {
  const { page } = browser;
  const admin = await api("admin", adminPassword);
  await createViewer(admin, viewer, viewerPassword);
  await logIn(page, viewer, viewerPassword);
  await page.goto(`/apps/${app}/calendars`);
  const row = page.getByRole("row", { name: new RegExp(calendar) });
  await row.waitFor();
  assert.deepEqual(await editControls(page), []);
  await row.getByRole("button", { name: `Show ${calendar}` }).click();
  const dialog = page.getByRole("dialog", { name: `Calendar ${calendar}` });
  const dates = dialog.getByLabel(/^Excluded dates/);
  assert.equal(await dates.inputValue(), holiday);
  assert.ok(await dates.isDisabled(), "the dates cannot be edited");
  assert.equal(await dialog.getByRole("button", { name: /Save|Create/ }).count(), 0);
  await shot(browser, "viewer-calendar");
});
