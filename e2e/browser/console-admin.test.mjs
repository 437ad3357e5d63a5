// Browser test of the console's administration screens against a running
// server whose app (APP) has a live agent: the admin creates a user (after
// a field error), an API token narrowed to the app whose secret shows once
// and works until it is revoked, manages the app's members (the server
// refuses to remove the last OWNER, and the console shows it), rotates the
// app secret, and changes their own password from the user menu.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { adminPassword, api, app, baseURL, logIn, logOut, nav, shot, suffix, useBrowser, waitUntil } from "./lib.mjs";

const browser = useBrowser();
const newUser = `ana-${suffix}`;
const tokenName = `ci-${suffix}`;
const newPassword = `${adminPassword}-2`;
/** The token's secret, as copied from the dialog. */
let tokenSecret = "";

/** Calls the API with a bearer token, as a service would. */
async function asToken(secret, query) {
  const res = await fetch(`${baseURL}/graphql`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${secret}` },
    body: JSON.stringify({ query }),
  });
  return res.json();
}

test("the admin creates a user, after the server's error at the password", async () => {
  const { page, context } = browser;
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  await page.goto("/");
  await logIn(page, "admin", adminPassword);
  await nav(page, "Users").click();
  await page.waitForURL(/\/users$/);
  await page.getByRole("row", { name: /admin/ }).waitFor();

  await page.getByRole("button", { name: "Create user" }).click();
  const dialog = page.getByRole("dialog", { name: "Create user" });
  await dialog.getByLabel(/^Username/).fill(newUser);
  const password = dialog.getByLabel(/^Password/);
  await password.fill("short");
  await dialog.getByRole("button", { name: "Create user" }).click();
  await dialog.locator("input[aria-invalid=true]").waitFor();
  assert.equal(await password.getAttribute("aria-invalid"), "true");
  assert.match(await dialog.innerText(), /at least 8 characters/);
  await shot(browser, "users-create-error");

  await password.fill(`pw-${suffix}-ana`);
  await dialog.getByRole("button", { name: "Create user" }).click();
  await dialog.waitFor({ state: "detached" });
  const row = page.getByRole("row", { name: new RegExp(newUser) });
  await row.waitFor();
  assert.match(await row.innerText(), /User/);
  await shot(browser, "users");
});

test("an API token is created for the app, its secret shown once, and it works", async () => {
  const { page } = browser;
  await nav(page, "API tokens").click();
  await page.waitForURL(/\/tokens$/);
  await page.getByRole("heading", { name: "API tokens", level: 2 }).waitFor();
  await page.getByRole("status").waitFor({ state: "detached" });

  await page.getByRole("button", { name: "Create token" }).click();
  const form = page.getByRole("dialog", { name: "Create API token" });
  await form.getByRole("textbox", { name: /^Name/ }).fill(tokenName);
  await form.getByRole("textbox", { name: /^App/ }).click();
  await page.getByRole("option", { name: app, exact: true }).click();
  await form.getByRole("textbox", { name: /^Role/ }).click();
  await page.getByRole("option", { name: /^VIEWER/ }).click();
  await shot(browser, "token-form");
  await form.getByRole("button", { name: "Create token" }).click();

  const shown = page.getByRole("dialog", { name: "New API token" });
  tokenSecret = (await shown.getByTestId("token-secret").innerText()).trim();
  assert.ok(tokenSecret.length > 20, `a secret: ${tokenSecret}`);
  await shown.getByText("will not be shown again").waitFor();
  await shown.getByRole("button", { name: "Copy token" }).click();
  await shown.getByRole("button", { name: "Copied" }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), tokenSecret);
  await shot(browser, "token-secret");
  await shown.getByRole("button", { name: "Done" }).click();
  await shown.waitFor({ state: "detached" });
  assert.equal(await page.getByText(tokenSecret).count(), 0, "the secret is gone once closed");

  const row = page.getByRole("row", { name: new RegExp(tokenName) });
  await row.waitFor();
  assert.match(await row.innerText(), new RegExp(`${app}[\\s\\S]*VIEWER[\\s\\S]*Active`, "i"));
  const me = await asToken(tokenSecret, "{ me { username } }");
  assert.equal(me.data?.me?.username, "admin");
  await shot(browser, "tokens");
});

test("revoking the token asks first, and then it stops working", async () => {
  const { page } = browser;
  await page.getByRole("button", { name: `Revoke ${tokenName}` }).click();
  const dialog = page.getByRole("dialog", { name: "Revoke API token" });
  await dialog.getByText(tokenName).waitFor();
  await shot(browser, "token-revoke-confirm");
  await dialog.getByRole("button", { name: "Revoke token" }).click();
  await dialog.waitFor({ state: "detached" });
  const row = page.getByRole("row", { name: new RegExp(tokenName) });
  await row.filter({ hasText: "Revoked" }).waitFor();
  assert.equal(await row.getByRole("button", { name: /Revoke/ }).count(), 0);
  const me = await asToken(tokenSecret, "{ me { username } }");
  assert.equal(me.errors?.[0]?.extensions?.code, "UNAUTHENTICATED");
  await shot(browser, "tokens-revoked");
});

test("the app's settings add a member, change a role, and refuse to lose the last OWNER", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/settings`);
  const members = page.getByRole("table", { name: "Members" });
  await members.waitFor();

  const form = page.getByRole("form", { name: "Add a member" });
  await form.getByRole("textbox", { name: /^Username/ }).fill("nobody-at-all");
  await form.getByRole("button", { name: "Add member" }).click();
  await form.locator("input[aria-invalid=true]").waitFor();
  assert.match(await form.innerText(), /no user named/);

  await form.getByRole("textbox", { name: /^Username/ }).fill(newUser);
  await form.getByRole("textbox", { name: /^Role/ }).click();
  await page.getByRole("option", { name: "EDITOR", exact: true }).click();
  await form.getByRole("button", { name: "Add member" }).click();
  const role = members.getByRole("textbox", { name: `${newUser} Role` });
  await role.waitFor();
  assert.equal(await role.inputValue(), "EDITOR");

  await role.click();
  await page.getByRole("option", { name: "VIEWER", exact: true }).click();
  // The select shows the server's role: VIEWER once the change was saved.
  await waitUntil(async () => (await role.inputValue()) === "VIEWER");

  // admin created the app, so is its only OWNER; the server keeps one.
  await page.getByRole("button", { name: "Remove admin" }).click();
  const dialog = page.getByRole("dialog", { name: "Remove member" });
  await dialog.getByRole("button", { name: "Remove member" }).click();
  await dialog.getByRole("alert").waitFor();
  assert.match(await dialog.getByRole("alert").innerText(), /last OWNER/);
  await shot(browser, "settings-last-owner");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "detached" });
  await shot(browser, "settings");
});

test("rotating the app secret asks first, then shows the new one once", async () => {
  const { page } = browser;
  await page.getByRole("button", { name: "Rotate secret" }).click();
  const confirm = page.getByRole("dialog", { name: "Rotate the app secret" });
  await confirm.getByRole("button", { name: "Rotate secret" }).click();
  const shown = page.getByRole("dialog", { name: "New app secret" });
  const secret = (await shown.getByTestId("app-secret").innerText()).trim();
  assert.match(secret, /^jwa_/);
  await shown.getByRole("button", { name: "Copy secret" }).waitFor();
  await shot(browser, "settings-new-secret");
  await shown.getByRole("button", { name: "Done" }).click();
  await shown.waitFor({ state: "detached" });
  assert.equal(await page.getByText(secret).count(), 0);
});

test("the admin changes their password from the user menu and logs in with it", async () => {
  const { page } = browser;
  await page.getByRole("banner").getByRole("button", { name: /^Account: admin/ }).click();
  await page.getByRole("menuitem", { name: "Change password" }).click();
  const dialog = page.getByRole("dialog", { name: "Change password" });
  await dialog.getByLabel(/^Current password/).fill(adminPassword);
  await dialog.getByLabel(/^New password/).fill(newPassword);
  await dialog.getByLabel(/^Repeat the new password/).fill(`${newPassword}x`);
  await dialog.getByRole("button", { name: "Change password" }).click();
  await dialog.getByText("does not match the new password").waitFor();
  await shot(browser, "change-password-mismatch");
  await dialog.getByLabel(/^Repeat the new password/).fill(newPassword);
  await dialog.getByRole("button", { name: "Change password" }).click();
  await dialog.waitFor({ state: "detached" });
  await page.getByText("Password changed").waitFor();

  await logOut(page);
  await logIn(page, "admin", newPassword);

  // The old password back, so the test can run again against the same server.
  const admin = await api("admin", newPassword);
  await admin(`mutation($o: String!, $n: String!) { changePassword(oldPassword: $o, newPassword: $n) }`, {
    o: newPassword,
    n: adminPassword,
  });
});
