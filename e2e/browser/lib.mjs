// What the console-*.test.mjs browser tests share: their environment, a
// Chromium page that records console problems, a screenshot per step, the
// login form, and GraphQL calls to the same server for setting things up.
//
// Environment (as the other browser tests):
//   BASE_URL        the server, e.g. http://127.0.0.1:7711 (required)
//   ADMIN_PASSWORD  the password of user "admin" (required)
//   APP             an app with a live agent running SHELL scripts (default "orders")
//   OUTPUT_DIR      where a screenshot of each step is saved (default: output/ beside this file)
//   CHROMIUM        the browser (default /usr/bin/chromium); never downloaded
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

export const baseURL = env("BASE_URL").replace(/\/+$/, "");
export const adminPassword = env("ADMIN_PASSWORD");
export const app = process.env.APP || "orders";
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

/** Unique per run, so a test can run again against the same server. */
export const suffix = Date.now().toString(36);

/**
 * Opens Chromium before the file's tests and closes it after; each test
 * fails if the browser console reported an error or warning meanwhile.
 * Returns an object whose `page` and `context` are set once it started.
 */
export function useBrowser({ viewport = { width: 1280, height: 800 } } = {}) {
  const state = { browser: null, context: null, page: null, problems: [], shots: 0 };

  before(async () => {
    mkdirSync(outputDir, { recursive: true });
    state.browser = await chromium.launch({ executablePath, args: chromiumArgs, headless: true });
    console.log(`ran in Chromium ${state.browser.version()} (${executablePath})`);
    state.context = await state.browser.newContext({
      baseURL,
      viewport,
      colorScheme: "light",
      reducedMotion: "reduce",
      timezoneId: "Europe/Berlin",
    });
    state.page = await state.context.newPage();
    state.page.setDefaultTimeout(15_000);
    state.page.on("console", (msg) => {
      if (msg.type() === "error" || msg.type() === "warning") {
        state.problems.push(`console ${msg.type()}: ${msg.text()} (${msg.location().url})`);
      }
    });
    state.page.on("pageerror", (err) => state.problems.push(`uncaught: ${err.message}`));
  });

  test.afterEach(() => {
    const found = state.problems;
    state.problems = [];
    assert.deepEqual(found, [], "the browser console reported problems");
  });

  after(async () => {
    await state.browser?.close();
  });

  return state;
}

/** Saves a full-page screenshot of the page, numbered in step order. */
export async function shot(state, name) {
  state.shots += 1;
  const path = join(outputDir, `${String(state.shots).padStart(2, "0")}-${name}.png`);
  // From the top: a full-page shot of a scrolled page draws the fixed header mid-page.
  await state.page.evaluate(() => window.scrollTo(0, 0));
  await state.page.screenshot({ path, fullPage: true });
  console.log(`screenshot ${path}`);
}

/** Logs in through the form (the page must be at /login or be sent there). */
export async function logIn(page, username, password) {
  await page.getByLabel("Username", { exact: true }).fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("banner").getByRole("button", { name: new RegExp(`Account: ${username}`) }).waitFor();
}

/** Logs out through the user menu. */
export async function logOut(page) {
  await page.getByRole("banner").getByRole("button", { name: /^Account: / }).click();
  await page.getByRole("menuitem", { name: "Log out" }).click();
  await page.waitForURL(/\/login/);
}

/** The main navbar's link named `name`. */
export function nav(page, name) {
  return page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
}

/**
 * The main area's buttons, links and switches that would change something
 * (create, run, edit, delete, stop, retry, enable, member and secret
 * changes), for role checks; an empty list for a read-only screen.
 */
export async function editControls(page) {
  const names = /^(New job|Run .* now|Edit .*|Delete .*|Stop|Retry|Create app|Add member|Remove .*|Rotate secret|Save job|Create job|Add header|New calendar|More actions for .*)$/;
  const main = page.getByRole("main");
  const found = [];
  for (const role of ["button", "link"]) {
    for (const el of await main.getByRole(role).all()) {
      const name = (await el.getAttribute("aria-label")) ?? (await el.innerText()).trim();
      if (names.test(name)) found.push(`${role} "${name}"`);
    }
  }
  // A job's enable switch is named "<job> enabled" (the log's Follow switch changes nothing).
  const switches = await main.getByRole("switch", { name: / enabled$/ }).count();
  if (switches > 0) found.push(`${switches} enable switches`);
  return found;
}

/** A GraphQL client for the server, logged in as `username`. */
export async function api(username, password) {
  let token = "";
  async function call(query, variables = {}) {
    const res = await fetch(`${baseURL}/graphql`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    const body = await res.json();
    if (body.errors?.length) {
      const err = new Error(body.errors.map((e) => `${e.extensions?.code}: ${e.message}`).join("; "));
      err.errors = body.errors;
      throw err;
    }
    return body.data;
  }
  const { login } = await call(`mutation($u: String!, $p: String!) { login(username: $u, password: $p) { token } }`, {
    u: username,
    p: password,
  });
  token = login.token;
  return call;
}

/** Creates a user (through `call`, an administrator's) and makes them VIEWER of the app. */
export async function createViewer(call, username, password) {
  await call(`mutation($u: String!, $p: String!) { createUser(username: $u, password: $p) { id } }`, {
    u: username,
    p: password,
  });
  await call(`mutation($a: String!, $u: String!) { setAppRole(app: $a, username: $u, role: VIEWER) { id } }`, {
    a: app,
    u: username,
  });
}

/** Creates an API-triggered SHELL job running `script`; returns its id. */
export async function createShellJob(call, name, script) {
  const { createJob } = await call(
    `mutation($input: JobInput!) { createJob(input: $input) { id } }`,
    {
      input: {
        app,
        name,
        scheduleType: "API",
        processorType: "SHELL",
        processor: script,
        timeoutMs: 60_000,
        // Several runs at once, not CANCELED over the default of one.
        maxInstances: 10,
      },
    },
  );
  return createJob.id;
}

/** Runs a job now; returns the instance id. */
export async function runJob(call, jobId) {
  const { runJob } = await call(`mutation($id: ID!) { runJob(id: $id) { id } }`, { id: jobId });
  return runJob.id;
}

/** Waits until `check()` resolves true, polling. */
export async function waitUntil(check, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not so after ${timeoutMs} ms: ${check}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const finished = new Set(["SUCCEEDED", "FAILED", "STOPPED", "CANCELED"]);

/** Waits until the instance has finished; returns its status. */
export async function waitFinished(call, instanceId, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { instance } = await call(`query($id: ID!) { instance(id: $id) { status } }`, { id: instanceId });
    if (finished.has(instance.status)) return instance.status;
    if (Date.now() > deadline) throw new Error(`instance ${instanceId} still ${instance.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
