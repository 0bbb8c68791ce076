import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends every run with a line saying whether the PostgreSQL half ran: without
 * SERVICE_TEST_DATABASE_URL the store-backed suites run on SQLite only, and a green run says
 * nothing of PostgreSQL's SQL.
 */
export class PostgresReporter implements Reporter {
  constructor(
    private readonly url = process.env.SERVICE_TEST_DATABASE_URL,
    private readonly out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  ) {}

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (!this.url) {
      this.out("PostgreSQL: not run (set SERVICE_TEST_DATABASE_URL to run every store-backed suite on PostgreSQL too)");
      return;
    }
    let ran = 0;
    for (const m of modules) for (const t of m.children.allTests()) if (/\bpostgres\b/.test(t.fullName) && t.result().state !== "skipped") ran++;
    this.out(`PostgreSQL: run against ${withoutPassword(this.url)} (${ran} tests named for postgres)`);
  }
}

function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "a server (the URL does not parse)";
  }
}
