import { describe, expect, it } from "vitest";
import { rootCause } from "./boot.js";
import { loadConfig } from "./config.js";

describe("start-up warnings", () => {
  it("say nothing for the defaults", () => {
    expect(loadConfig({}).warnings).toEqual([]);
  });

  it("name a SERVICE_* variable nothing reads, with the setting it is closest to; the CLI's, the runner's and the tests' own names pass", () => {
    const c = loadConfig({
      SERVICE_PROT: "9000",
      SERVICE_FOO: "1",
      SERVICE_URL: "http://x",
      SERVICE_TOKEN: "t",
      SERVICE_TEST_DATABASE_URL: "postgres://x",
      SERVICE_PLATFORM_KEY_ANTHROPIC: "sk",
      SERVICE_METRICS_TOKEN: "m",
    });
    expect(c.warnings).toEqual([
      "SERVICE_FOO is not a setting of the service and is ignored",
      "SERVICE_PROT is not a setting of the service and is ignored (did you mean SERVICE_PORT?)",
    ]);
    expect(c.port).toBe(8080);
  });

  it("give the value a lenient limit fell back from (the spec's rule: 0, unlimited)", () => {
    const c = loadConfig({
      SERVICE_ORG_DEFAULT_MONTHLY_RUN_QUOTA: "-5",
      SERVICE_ORG_DEFAULT_LAUNCH_RATE_PER_MIN: "ten",
      SERVICE_ORG_DEFAULT_MAX_CONCURRENT_RUNS: "3",
    });
    expect(c.orgDefaults).toMatchObject({ monthlyRunQuota: 0, launchRatePerMin: 0, maxConcurrentRuns: 3 });
    expect(c.warnings).toEqual([
      'SERVICE_ORG_DEFAULT_LAUNCH_RATE_PER_MIN="ten" is not a number of 0 or more: 0 (unlimited) is used',
      'SERVICE_ORG_DEFAULT_MONTHLY_RUN_QUOTA="-5" is not a number of 0 or more: 0 (unlimited) is used',
    ]);
  });

  it("warn that 0.0.0.0 without SERVICE_BASE_URL gives delivery URLs no forge can reach, and not once a base URL is set", () => {
    expect(loadConfig({ SERVICE_HOST: "0.0.0.0" }).warnings[0]).toMatch(
      /^SERVICE_HOST=0.0.0.0 without SERVICE_BASE_URL: delivery URLs name http:\/\/0.0.0.0:8080/,
    );
    expect(loadConfig({ SERVICE_HOST: "::" }).warnings).toHaveLength(1);
    expect(loadConfig({ SERVICE_HOST: "0.0.0.0", SERVICE_BASE_URL: "https://gw.example" }).warnings).toEqual([]);
  });

  it("an unreachable store is named by its innermost cause", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    expect(rootCause(new Error("migration unknown failed", { cause: new AggregateError([refused]) }))).toBe("connect ECONNREFUSED 127.0.0.1:5432");
    expect(rootCause(Object.assign(new Error(""), { code: "ETIMEDOUT" }))).toBe("ETIMEDOUT");
    expect(rootCause("plain")).toBe("plain");
  });
});
