import { readFileSync } from "node:fs";
import { Command } from "commander";
import { registerDeliveries } from "./commands/deliveries.js";
import { registerLogin, registerLogout } from "./commands/login.js";
import { registerPassword } from "./commands/password.js";
import { registerRawApi } from "./commands/raw-api.js";
import { registerRepoBots } from "./commands/repo-bots.js";
import { registerRunner } from "./commands/runner.js";
import { registerRuns } from "./commands/runs.js";
import { registerTenancy } from "./commands/tenancy.js";
import { registerUsage } from "./commands/usage.js";
import { registerWebhooks } from "./commands/webhooks.js";

/** The package's version, from its package.json (two folders above src/cli and dist/cli). */
function packageVersion(): string {
  try {
    return JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** The `remote` command tree; every command and group answers --help. */
export function buildProgram(): Command {
  const program = new Command("remote")
    .description("Operate the bot gateway through its HTTP API (sign in with `remote login`, or set SERVICE_URL and SERVICE_TOKEN)")
    .version(packageVersion(), "-V, --version", "print the version of remote")
    .option("--json", "print the API's JSON instead of tables")
    .showHelpAfterError()
    // Subcommands inherit this: errors reach main() as exceptions, which picks the exit code.
    .exitOverride();
  registerLogin(program);
  registerLogout(program);
  registerPassword(program);
  registerRawApi(program);
  registerTenancy(program);
  registerWebhooks(program);
  registerDeliveries(program);
  registerRepoBots(program);
  registerRuns(program);
  registerRunner(program);
  registerUsage(program);
  return program;
}
