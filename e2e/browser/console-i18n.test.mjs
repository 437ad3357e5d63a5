// Browser test of the console in Chinese (issue 28 item 14): the admin
// logs in in English, switches to 简体中文 in the top bar, and the page
// reloads in Chinese — navigation, the jobs table, a job page with its
// status names, an instance — and stays Chinese after a reload and a new
// login (the choice is kept in localStorage); switching back gives English.
//
// Environment and conventions: see lib.mjs (BASE_URL, ADMIN_PASSWORD, APP,
// OUTPUT_DIR, CHROMIUM). Any console error or warning fails the test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { adminPassword, api, app, createShellJob, logIn, runJob, shot, suffix, useBrowser, waitFinished } from "./lib.mjs";

const browser = useBrowser();
const jobName = `e2e-zh-${suffix}`;
let jobId = "";
let instanceId = "";

const mainNav = (page, label) => page.getByRole("navigation", { name: "主导航" }).getByRole("link", { name: label, exact: true });

test("setup: a job that has run and succeeded", async () => {
  const admin = await api("admin", adminPassword);
  jobId = await createShellJob(admin, jobName, "echo 你好");
  instanceId = await runJob(admin, jobId);
  assert.equal(await waitFinished(admin, instanceId), "SUCCEEDED");
});

test("the top bar switches the console to Chinese, and the page reloads in it", async () => {
  const { page } = browser;
  await page.goto("/");
  await logIn(page, "admin", adminPassword);
  await page.goto(`/apps/${app}/jobs`);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Jobs", exact: true }).waitFor();
  await page.getByRole("banner").getByText("简体中文").click();
  await mainNav(page, "任务").waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), "zh-CN");
  assert.equal(await page.evaluate(() => localStorage.getItem("jobwheel.language")), "zh-CN");
  const links = await page.getByRole("navigation", { name: "主导航" }).getByRole("link").allInnerTexts();
  for (const label of ["应用", "仪表盘", "任务", "实例", "工作流", "执行器", "审计"]) assert.ok(links.includes(label), `${label} in ${links}`);
  // The jobs table's headers and the page title.
  await page.getByRole("columnheader", { name: "名称" }).waitFor();
  await page.getByRole("columnheader", { name: "下次触发" }).waitFor();
  assert.match(await page.title(), /任务 · /);
  await shot(browser, "zh-jobs");
});

test("a job page and an instance read in Chinese, statuses too", async () => {
  const { page } = browser;
  await page.goto(`/apps/${app}/jobs/${jobId}`);
  await page.getByRole("heading", { name: jobName }).waitFor();
  await page.getByRole("tab", { name: "概览" }).waitFor();
  await page.getByRole("button", { name: "立即运行" }).waitFor();
  await page.getByText("成功", { exact: true }).first().waitFor();
  await shot(browser, "zh-job");
  await page.goto(`/apps/${app}/instances/${instanceId}`);
  await page.getByRole("heading", { name: `实例 #${instanceId}` }).waitFor();
  await page.getByText("日志", { exact: true }).first().waitFor();
  await shot(browser, "zh-instance");
});

test("the choice survives a reload and a new login; English comes back from the same switch", async () => {
  const { page } = browser;
  await page.reload();
  await mainNav(page, "任务").waitFor();
  await page.getByRole("banner").getByText("English").click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Jobs", exact: true }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem("jobwheel.language")), "en");
});
