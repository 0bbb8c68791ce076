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
  let seeded: Awaited<ReturnType<typeof seedTenancy>> | undefined;
  /** One tenancy for the file (its logins are unique), made by whichever test runs first. */
  const seed = async () => {
    seeded ??= await seedTenancy(t);
    return seeded;
  };

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
    const s = await seed();
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

  it("changes an admin-set password at sign-in, cancels a run, rotates a webhook and reads the org's days, under the page policy", async () => {
    const s = await seed();
    const u = (await s.admin.post("/api/admin/users", { login: "browser-pw" })).body;
    await s.admin.put(`/api/teams/${s.team.id}/members/${u.id}`, { role: "admin" });
    await s.admin.put(`/api/admin/users/${u.id}/password`, { password: "admin chose this one" });
    const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "generic", name: "rotating", bot_ids: ["review-pr"] })).body;
    const runId = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" })).body.id;

    const page = await browser.newPage();
    const blocked: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
    });
    await page.goto(`${base}/console`);
    await page.getByLabel("Login").fill("browser-pw");
    await page.getByLabel("Password", { exact: true }).fill("admin chose this one");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Change your password");
    await page.getByLabel("Current password").fill("admin chose this one");
    await page.getByLabel("New password", { exact: true }).fill("my own browser words");
    await page.getByLabel("New password again").fill("my own browser words");
    await page.screenshot({ path: path.join(SHOTS, "4-change-password.png") });
    await page.getByRole("button", { name: "Change the password" }).click();
    await expect.poll(() => page.textContent("main")).toContain("Your password is changed");
    await page.getByRole("link", { name: "Go on to the console" }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Your teams");

    await page.goto(`${base}/console/runs/${runId}`);
    await page.getByRole("button", { name: "Cancel the run" }).click();
    await expect.poll(() => page.locator(".status").first().textContent()).toBe("cancelled");
    expect((await s.member.api.get(`/api/runs/${runId}`)).body.status).toBe("cancelled");

    await page.goto(`${base}/console/teams/${s.team.id}/webhooks/${hook.config.id}`);
    await page.getByLabel(/Overlap in seconds/).fill("600");
    await page.getByRole("button", { name: "Rotate" }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Rotated rotating");
    expect(await page.locator("code.secret").textContent()).not.toBe(hook.token);

    await page.goto(`${base}/console/orgs/${s.org.id}/usage`);
    expect(await page.locator("h2", { hasText: "Per day" }).count()).toBe(1);
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    const row = page.locator("tr", { has: page.locator(`time[datetime="${today}"]`) });
    expect(Number(await row.locator("td.num").first().textContent())).toBeGreaterThanOrEqual(1);
    // The day's bar has its width from the stylesheet's class, not from an inline style.
    expect(
      await row
        .locator(".bar.mini > span")
        .first()
        .evaluate((el) => el.getBoundingClientRect().width),
    ).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, "5-usage-per-day.png"), fullPage: true });
    expect(blocked).toEqual([]);
  });
});
