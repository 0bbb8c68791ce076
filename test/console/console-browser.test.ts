import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, type TestApp } from "../../src/test-support/harness.js";

/** Debian's Chromium; CI installs it and sets SERVICE_TEST_REQUIRE_BROWSER so a missing one fails rather than skips. */
const EXECUTABLE = process.env.SERVICE_TEST_CHROMIUM ?? "/usr/bin/chromium";
const present = fs.existsSync(EXECUTABLE);
if (!present && process.env.SERVICE_TEST_REQUIRE_BROWSER) throw new Error(`no Chromium at ${EXECUTABLE}: install Debian's chromium package`);
const SHOTS = path.resolve("test-artifacts/console");

describe.skipIf(!present)("the console in a real browser", () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp("sqlite");
    base = await t.app.listen({ host: "127.0.0.1", port: 0 });
    browser = await chromium.launch({
      executablePath: EXECUTABLE,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("signs in, finds the delivery that was filtered and why, and opens the run the other one launched", async () => {
    const s = await seedTenancy(t);
    const hook = (
      await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, {
        provider: "generic",
        name: "ci",
        bot_ids: ["review-pr"],
        project_allowlist: ["acme/app"],
      })
    ).body;
    const deliver = (body: unknown) =>
      fetch(`${base}/api/webhooks/generic/${hook.config.id}`, {
        method: "POST",
        headers: { "x-service-webhook-token": hook.token, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await deliver({ bot: "review-pr", project_path: "acme/app", vars: { pr: "7" } })).status).toBe(200);
    expect((await deliver({ bot: "review-pr", project_path: "someone/else" })).status).toBe(200);
    const token = (await s.member.api.post("/api/users/me/tokens", { name: "browser" })).body.token;

    const page = await browser.newPage();
    // The console runs under its Content-Security-Policy: nothing on its pages may be blocked by it.
    const blocked: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
    });
    await page.goto(`${base}/console`);
    await page.getByLabel("Access token").fill(token);
    await page.screenshot({ path: path.join(SHOTS, "1-sign-in.png") });
    await page.getByRole("button", { name: "Sign in with the token" }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Your teams");
    await page.getByRole("link", { name: "Platform" }).click();
    await page.getByRole("link", { name: "ci" }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Deliveries of ci");
    const filteredRow = page.locator("tr", { has: page.locator(".s-filtered") });
    expect(await filteredRow.textContent()).toContain("someone/else");
    await page.screenshot({ path: path.join(SHOTS, "2-delivery-log.png"), fullPage: true });

    await page.getByLabel("Status").selectOption("launched");
    await page.getByRole("button", { name: "Filter" }).click();
    expect(await page.locator(".s-filtered").count()).toBe(0);
    await page.locator("a[href^='/console/runs/']").first().click();
    await expect.poll(() => page.textContent("h1")).toMatch(/^Run run_/);
    expect(await page.textContent("main")).toContain("review-pr");
    await page.screenshot({ path: path.join(SHOTS, "3-run.png"), fullPage: true });

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Sign in");
    expect(blocked).toEqual([]);
  });
});
