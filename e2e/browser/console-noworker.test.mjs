// Browser test of "why no worker?" (e2e/drain_test.go,
// TestNoQualifyingWorkerFailsSayingWhy): the Go test ran a job that
// requires a tag no connected worker has until it failed NO_WORKER; its
// instance page shows a "Why no worker" table with each connected worker,
// the filter that ruled it out (TAG) and why, in words.
//
// Environment: as lib.mjs (BASE_URL, ADMIN_PASSWORD, APP, OUTPUT_DIR,
// CHROMIUM), and
//   INSTANCE_ID  the failed instance
//   WORKERS      the ids of the app's connected workers, comma-separated, in id order
import assert from "node:assert/strict";
import { test } from "node:test";
import { adminPassword, app, logIn, shot, useBrowser } from "./lib.mjs";

const browser = useBrowser();
const instanceId = process.env.INSTANCE_ID;
const workers = (process.env.WORKERS ?? "").split(",").filter(Boolean);

test("the failed instance's page lists each worker and the filter that ruled it out", async () => {
  assert.ok(instanceId, "set INSTANCE_ID");
  assert.ok(workers.length > 0, "set WORKERS");
  const { page } = browser;
  await page.goto(`/apps/${app}/instances/${instanceId}`);
  await logIn(page, "admin", adminPassword);
  await page.getByRole("heading", { name: `Instance #${instanceId}` }).waitFor();
  const section = page.getByRole("region", { name: "Why no worker" });
  await section.waitFor();
  const rows = section.getByRole("table").getByRole("row");
  // The header, then one row per worker, by id.
  assert.equal(await rows.count(), workers.length + 1);
  assert.deepEqual(await rows.nth(0).getByRole("columnheader").allInnerTexts(), ["Worker", "Host", "Filter", "Reason"]);
  for (const [i, worker] of workers.entries()) {
    const row = rows.nth(i + 1);
    assert.equal((await row.getByRole("rowheader").innerText()).trim(), worker);
    const cells = (await row.getByRole("cell").allInnerTexts()).map((s) => s.trim());
    assert.equal(cells.length, 3, `row of ${worker}: ${cells}`);
    assert.ok(cells[0].length > 0, `row of ${worker} names no host`);
    assert.equal(cells[1], "TAG");
    assert.equal(cells[2], 'lacks tag "gpu"');
  }
  // The instance's reason says the same in short.
  assert.match(await page.getByRole("main").innerText(), /NO_WORKER/);
  await section.scrollIntoViewIfNeeded();
  await shot(browser, "why-no-worker");
});
