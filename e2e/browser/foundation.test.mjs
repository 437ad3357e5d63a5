// Browser test of the console's foundation against a running server: log in
// (and fail to), create an app and see its secret once, list servers, log
// out, follow a deep link through the login page.
//
// It drives Debian's Chromium through playwright-core; it never downloads a
// browser. Environment:
//   BASE_URL        the server, e.g. http://127.0.0.1:7711 (required)
//   ADMIN_PASSWORD  the password of user "admin" (required)
//   OUTPUT_DIR      where a screenshot of each step is saved
//                   (default: output/ beside this file)
//   CHROMIUM        the browser (default /usr/bin/chromium)
//
// Run: node --test e2e/browser/foundation.test.mjs (or `node` on the file),
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

let browser;
let context;
let page;
let shotCount = 0;
/** Console errors and warnings and uncaught exceptions, by test. */
let problems = [];

async function shot(name) {
  shotCount += 1;
  const path = join(outputDir, `${String(shotCount).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot ${path}`);
}

async function logIn(password) {
  await page.getByLabel("Username", { exact: true }).fill("admin");
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

function path() {
  const url = new URL(page.url());
  return url.pathname + url.search;
}

before(async () => {
  mkdirSync(outputDir, { recursive: true });
  browser = await chromium.launch({ executablePath, args: chromiumArgs, headless: true });
  console.log(`ran in Chromium ${browser.version()} (${executablePath})`);
  // Reduced motion turns off the console's transitions, so no screenshot
  // catches a dialog half-faded.
  context = await browser.newContext({
    baseURL,
    viewport: { width: 1280, height: 800 },
    colorScheme: "light",
    reducedMotion: "reduce",
  });
  // The copy button writes to the clipboard; reading it back proves it did.
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  page = await context.newPage();
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

test("an anonymous visitor is sent to the login page", async () => {
  await page.goto("/");
  await page.waitForURL(/\/login$/);
  await page.getByLabel("Username", { exact: true }).waitFor();
  await shot("login");
});

test("a wrong password shows an error and stays on the login page", async () => {
  await logIn("not-the-password");
  const alert = page.getByRole("alert");
  await alert.waitFor();
  assert.match(await alert.innerText(), /wrong username or password/i);
  assert.equal(path(), "/login");
  await shot("login-failed");
});

test("the admin logs in and lands on Apps", async () => {
  await logIn(adminPassword);
  await page.waitForURL(/\/apps$/);
  await page.getByRole("heading", { name: "Apps", level: 2 }).waitFor();
  await page.getByRole("banner").getByRole("button", { name: /admin/ }).waitFor();
  await page.getByRole("status").waitFor({ state: "detached" });
  await shot("apps");
});

test("creating an app shows its secret once", async () => {
  const name = `e2e-${Date.now().toString(36)}`;
  await page.getByRole("button", { name: "Create app" }).click();
  const dialog = page.getByRole("dialog", { name: "Create app" });

  // The server's BAD_INPUT error shows at the field it names.
  await dialog.getByLabel("Name").fill("Bad Name");
  await dialog.getByRole("button", { name: "Create app" }).click();
  await dialog.locator("input[aria-invalid=true]").waitFor();
  assert.equal(await dialog.getByLabel("Name").getAttribute("aria-invalid"), "true");
  await shot("create-app-bad-name");

  await dialog.getByLabel("Name").fill(name);
  await dialog.getByLabel("Description").fill("Made by the browser test");
  await shot("create-app-form");
  await dialog.getByRole("button", { name: "Create app" }).click();

  const secretDialog = page.getByRole("dialog", { name: "App secret" });
  const secret = (await secretDialog.getByTestId("app-secret").innerText()).trim();
  assert.match(secret, /^jwa_\S+$/);
  await secretDialog.getByText("will not be shown again").waitFor();
  await secretDialog.getByRole("button", { name: "Copy secret" }).click();
  await secretDialog.getByRole("button", { name: "Copied" }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
  await shot("app-secret");

  await secretDialog.getByRole("button", { name: "Done" }).click();
  await secretDialog.waitFor({ state: "detached" });
  const row = page.getByRole("row", { name: new RegExp(name) });
  await row.waitFor();
  assert.match(await row.innerText(), /Made by the browser test/);
  assert.match(await row.innerText(), /OWNER/);
  assert.equal(await page.getByText(secret).count(), 0, "the secret is still on the page");
  await shot("apps-with-new-app");
});

test("Servers lists this server as alive", async () => {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Servers" }).click();
  await page.waitForURL(/\/servers$/);
  const rows = page.getByRole("table").getByRole("row").filter({ has: page.getByText("alive", { exact: true }) });
  await rows.first().waitFor();
  assert.equal(await rows.count(), 1);
  await shot("servers");

  // The colour scheme follows the operating system's.
  await page.emulateMedia({ colorScheme: "dark" });
  await shot("servers-dark");
  await page.emulateMedia({ colorScheme: "light" });
});

test("logging out ends the session; a deep link survives logging in again", async () => {
  await page.getByRole("banner").getByRole("button", { name: /admin/ }).click();
  await page.getByRole("menuitem", { name: "Log out" }).click();
  await page.waitForURL(/\/login$/);

  await page.goto("/servers");
  await page.waitForURL(/\/login\?next=%2Fservers$/);
  await shot("deep-link-login");
  await logIn(adminPassword);
  await page.waitForURL(/\/servers$/);
  await page.getByRole("heading", { name: "Servers", level: 2 }).waitFor();
  await shot("deep-link-servers");
});
