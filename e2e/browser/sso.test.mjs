// Browser test of single sign-on against a real OpenID Connect provider
// (Dex) that the Go test (e2e/sso_test.go) started with the user
// ada@example.com in the group payments-dev, which the server maps to
// EDITOR on the app APP. The Go test changes ada's groups in the provider
// when this script POSTs to CONTROL_URL/groups/<comma-separated groups or
// "none">.
//
// Environment: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP, OUTPUT_DIR,
// CHROMIUM), plus CONTROL_URL and JOB_ID (a job of APP). Any console error
// or warning fails the test, except the one the browser logs when the
// server closes the console's websocket on purpose (the sign-on ended).
import assert from "node:assert/strict";
import { test } from "node:test";
import { app, shot, useBrowser } from "./lib.mjs";

const browser = useBrowser();
const control = process.env.CONTROL_URL;
const jobId = process.env.JOB_ID;

/** Calls the API from the page, with the page's session cookie. */
async function gql(page, query, variables = {}) {
  return page.evaluate(
    async ([query, variables]) => {
      const res = await fetch("/graphql", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      return res.json();
    },
    [query, variables],
  );
}

function codeOf(body) {
  return body.errors?.[0]?.extensions?.code ?? "OK";
}

async function setGroups(groups) {
  const res = await fetch(`${control}/groups/${groups.length ? groups.join(",") : "none"}`, { method: "POST" });
  assert.equal(res.status, 200, await res.text());
}

const runJob = `mutation($id: ID!) { runJob(id: $id) { id } }`;

test("ada signs in with Dex and lands with the role her group maps to", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/jobs`);
  await page.waitForURL(/\/login/);
  const signIn = page.getByRole("link", { name: "Sign in with Dex" });
  await signIn.waitFor();
  await shot(browser, "login-page");
  await signIn.click();
  // The provider's own login form.
  await page.waitForURL(/\/dex\/auth/);
  await page.locator('input[name="login"]').fill("ada@example.com");
  await page.locator('input[name="password"]').fill("ada-password-1");
  await shot(browser, "provider-login");
  await page.locator('button[type="submit"]').click();
  // Back in the console, on the page she asked for.
  await page.waitForURL(new RegExp(`/apps/${app}/jobs$`));
  await page.getByRole("banner").getByRole("button", { name: "Account: ada@example.com" }).click();
  await page.getByText("Signed in with Dex").waitFor();
  await shot(browser, "signed-in");
  await page.keyboard.press("Escape");

  const me = await gql(page, `{ me { username admin ssoSubject } }`);
  assert.equal(me.data.me.username, "ada@example.com");
  assert.equal(me.data.me.admin, false);
  assert.match(me.data.me.ssoSubject, /\/dex#/);
  const apps = await gql(page, `{ apps { name myRole } }`);
  assert.deepEqual(apps.data.apps, [{ name: app, myRole: "EDITOR" }]);

  // EDITOR may run the job, and may not rotate the app's secret (OWNER).
  assert.equal(codeOf(await gql(page, runJob, { id: jobId })), "OK");
  assert.equal(codeOf(await gql(page, `mutation($a: String!) { rotateAppSecret(app: $a) { secret } }`, { a: app })), "FORBIDDEN");
});

test("moved to another group in the provider, ada has the new role at her next request", async () => {
  const { page } = browser;
  await setGroups(["payments-viewers"]);
  assert.equal(codeOf(await gql(page, runJob, { id: jobId })), "FORBIDDEN");
  const apps = await gql(page, `{ apps { name myRole } }`);
  assert.deepEqual(apps.data.apps, [{ name: app, myRole: "VIEWER" }]);
  await page.reload();
  await page.getByRole("heading", { name: "Jobs" }).waitFor();
  assert.equal(await page.getByRole("link", { name: "New job" }).count() + (await page.getByRole("button", { name: "New job" }).count()), 0);
  await shot(browser, "viewer-now");
});

test("removed from every allowed group, her open console is sent to the login page", async () => {
  const { page } = browser;
  // The dashboard keeps a websocket open (live counts); its periodic
  // re-check asks the provider, which no longer vouches for her.
  await page.goto(`/apps/${app}/dashboard`);
  await page.getByTestId("stat-Jobs").waitFor();
  await setGroups([]);
  await page.waitForURL(/\/login/, { timeout: 60_000 });
  await page.getByRole("link", { name: "Sign in with Dex" }).waitFor();
  await shot(browser, "signed-out");
  const me = await gql(page, `{ me { username } }`);
  assert.equal(codeOf(me), "UNAUTHENTICATED");
  // The browser reports the closed websocket; it is what this test wants.
  browser.problems = browser.problems.filter((p) => !/WebSocket|websocket|4403|401/.test(p));
});
