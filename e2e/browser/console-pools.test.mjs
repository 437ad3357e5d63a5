// Browser test of the Pools screen against a running server: the admin
// creates a one-slot pool (a mutex) on the screen, a job naming it is run
// twice through the API, and the screen shows — live, without a reload —
// one instance holding the slot and the other waiting first in the queue;
// once the holder ends the waiter takes the slot, and once both ended the
// pool is empty again.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { adminPassword, api, app, logIn, nav, runJob, shot, suffix, useBrowser, waitFinished } from "./lib.mjs";

const browser = useBrowser();
const pool = `mutex-${suffix}`;
const jobName = `e2e-pool-${suffix}`;
// Each run of the job waits for a file named after its instance id: the
// test lets them end one by one.
const gate = (instanceId) => join(tmpdir(), `jobwheel-pool-${suffix}-${instanceId}`);

test("a one-slot pool shows its holder and its queue live", async () => {
  const { page } = browser;
  await page.goto("/");
  await logIn(page, "admin", adminPassword);
  await page.goto(`/apps/${app}/dashboard`);
  await nav(page, "Pools").click();
  await page.waitForURL(new RegExp(`/apps/${app}/pools$`));
  await page.getByRole("heading", { name: "Pools", level: 2 }).waitFor();

  await page.getByRole("button", { name: "New pool" }).click();
  const dialog = page.getByRole("dialog", { name: "New pool" });
  await dialog.getByLabel(/^Name/).fill(pool);
  await dialog.getByLabel(/^Slots/).fill("1");
  await dialog.getByRole("button", { name: "Create pool" }).click();
  await dialog.waitFor({ state: "detached" });
  const card = page.getByRole("region", { name: `Pool ${pool}` });
  await card.getByText("0 of 1 slot in use").waitFor();
  assert.match(await card.innerText(), /mutex/);

  // A job naming the pool, whose runs end when their gate file appears.
  const admin = await api("admin", adminPassword);
  const { createJob } = await admin(`mutation($in: JobInput!) { createJob(input: $in) { id } }`, {
    in: {
      app,
      name: jobName,
      scheduleType: "API",
      processorType: "SHELL",
      processor: `while [ ! -f ${join(tmpdir(), `jobwheel-pool-${suffix}-`)}$JOBWHEEL_INSTANCE_ID ]; do sleep 0.2; done; echo done`,
      maxInstances: 10,
      pool,
    },
  });
  const first = await runJob(admin, createJob.id);
  await card.getByTestId("pool-holders").getByRole("link", { name: `Instance ${first}` }).waitFor();
  const second = await runJob(admin, createJob.id);
  const queue = card.getByTestId("pool-queue");
  await queue.getByRole("link", { name: `Instance ${second}` }).waitFor();
  assert.match(await queue.getByRole("row").first().innerText(), /^#1/);
  await card.getByText("1 of 1 slot in use").waitFor();
  await shot(browser, "pool-held-and-waiting");

  writeFileSync(gate(first), "");
  // The holder ends: the waiter takes the slot, shown without a reload.
  await card.getByTestId("pool-holders").getByRole("link", { name: `Instance ${second}` }).waitFor();
  await queue.getByText("Nothing waits for it.").waitFor();
  assert.equal(await waitFinished(admin, first), "SUCCEEDED");
  await shot(browser, "pool-next-holder");
  writeFileSync(gate(second), "");
  assert.equal(await waitFinished(admin, second), "SUCCEEDED");
  await card.getByText("0 of 1 slot in use").waitFor();
  await card.getByTestId("pool-holders").getByText("Nothing holds it now.").waitFor();
  await shot(browser, "pool-empty-again");
  for (const id of [first, second]) rmSync(gate(id), { force: true });
});
