// Cross-site request forgery from a page of the same site (issue 11, item
// 3): SameSite=Strict ignores ports, so a page served on another port of
// the server's host is "same-site" and its form posts carry the admin's
// session cookie. The server must refuse such requests whatever they look
// like; the console's own origin keeps working.
//
// Environment: BASE_URL, ADMIN_PASSWORD, OUTPUT_DIR, CHROMIUM (see README.md).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";

const baseURL = (process.env.BASE_URL || "").replace(/\/+$/, "");
const adminPassword = process.env.ADMIN_PASSWORD;
if (!baseURL || !adminPassword) throw new Error("set BASE_URL and ADMIN_PASSWORD");
const outputDir = process.env.OUTPUT_DIR || join(import.meta.dirname, "output");
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const suffix = Date.now().toString(36);

let browser, page, attacker, attackerURL;

function createUserQuery(name) {
  return `mutation { createUser(username: "${name}", password: "password-1", admin: true) { id } }`;
}

// The attacker's pages, on another port of the same host.
function attackerPages(target) {
  const q = (name) => JSON.stringify({ query: createUserQuery(name), x: "" });
  const html = (body) => `<!doctype html><meta charset="utf-8"><title>totally harmless</title><body>${body}</body>`;
  const escape = (s) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  return {
    // enctype text/plain sends name=value raw: a JSON body with "=" in it.
    "/text-plain": html(`<form method="post" action="${target}" enctype="text/plain">
      <input name="${escape(q(`csrf-text-${suffix}`).slice(0, -2))}" value='"}'></form>
      <script>document.forms[0].submit()</script>`),
    // The form encoding curl uses, with the query as a field.
    "/urlencoded": html(`<form method="post" action="${target}">
      <input name="query" value="${escape(createUserQuery(`csrf-form-${suffix}`))}"></form>
      <script>document.forms[0].submit()</script>`),
    // fetch without CORS can send simple content types with the cookie.
    "/fetch": html(`<script>
      fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors", credentials: "include",
        headers: { "Content-Type": "text/plain" }, body: ${JSON.stringify(q(`csrf-fetch-${suffix}`))} })
        .then(() => { document.title = "sent" }, (e) => { document.title = "failed " + e });
    </script>`),
    // A GET query with the cookie (reads are not readable cross-origin, but
    // must not run either).
    "/get": html(`<img src="${target}?query=${encodeURIComponent("{ users { username } }")}" onerror="document.title='done'" onload="document.title='done'">`),
  };
}

before(async () => {
  mkdirSync(outputDir, { recursive: true });
  const pages = attackerPages(`${baseURL}/graphql`);
  attacker = createServer((req, res) => {
    const body = pages[req.url];
    res.writeHead(body ? 200 : 404, { "Content-Type": "text/html; charset=utf-8" });
    res.end(body || "not found");
  });
  await new Promise((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerURL = `http://127.0.0.1:${attacker.address().port}`;
  browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  console.log(`ran in Chromium ${browser.version()} (${executablePath}); the other page is at ${attackerURL}`);
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(15_000);
});

after(async () => {
  await browser?.close();
  attacker?.close();
});

// GraphQL as the admin, with a bearer token, outside the browser.
let adminToken;
async function api(query) {
  if (!adminToken) {
    const r = await fetch(`${baseURL}/graphql`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: `mutation { login(username: "admin", password: ${JSON.stringify(adminPassword)}) { token } }` }),
    });
    adminToken = (await r.json()).data.login.token;
  }
  const r = await fetch(`${baseURL}/graphql`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ query }),
  });
  return r.json();
}

async function usernames() {
  const r = await api("{ users { username } }");
  return r.data.users.map((u) => u.username);
}

test("the admin's session cookie works from the server's own origin", async () => {
  // A page of the server's own origin logs in, as the console does.
  await page.goto(`${baseURL}/healthz`);
  const me = await page.evaluate(async (password) => {
    const call = async (query) =>
      (await fetch("/graphql", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query }) })).json();
    await call(`mutation { login(username: "admin", password: ${JSON.stringify(password)}) { token } }`);
    return call("{ me { username } }");
  }, adminPassword);
  assert.equal(me.data?.me?.username, "admin", JSON.stringify(me));
  const cookies = await page.context().cookies(baseURL);
  assert.ok(cookies.some((c) => c.name === "jobwheel_session" && c.httpOnly && c.sameSite === "Strict"), JSON.stringify(cookies));
  // And it may change things from there.
  const created = await page.evaluate(async (query) => {
    const r = await fetch("/graphql", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query }) });
    return r.json();
  }, createUserQuery(`same-origin-${suffix}`));
  assert.ok(created.data?.createUser?.id, JSON.stringify(created));
});

test("a page on another port cannot use the cookie", async () => {
  for (const path of ["/text-plain", "/urlencoded"]) {
    const response = page.waitForResponse((r) => r.url().startsWith(`${baseURL}/graphql`));
    await page.goto(attackerURL + path);
    const r = await response;
    const text = await r.text();
    assert.ok(r.status() >= 400, `${path}: the server answered ${r.status()} ${text}`);
    assert.match(text, /"code":"(FORBIDDEN|BAD_INPUT)"/, `${path}: ${text}`);
    await page.screenshot({ path: join(outputDir, `csrf-${path.slice(1)}.png`) });
  }
  await page.goto(attackerURL + "/fetch");
  await page.waitForFunction(() => document.title !== "totally harmless");
  await page.goto(attackerURL + "/get");
  await page.waitForFunction(() => document.title === "done");
  const users = await usernames();
  for (const kind of ["text", "form", "fetch"]) {
    assert.ok(!users.includes(`csrf-${kind}-${suffix}`), `the ${kind} request from ${attackerURL} created a user: ${users}`);
  }
  assert.ok(users.includes(`same-origin-${suffix}`), `the same-origin control is missing: ${users}`);
});
