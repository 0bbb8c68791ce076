import type { Command } from "commander";
import { UsageError } from "../api.js";
import { action } from "../context.js";
import { ask } from "./login.js";

/** `remote password`: change the signed-in user's password (PUT /api/users/me/password). */
export function registerPassword(program: Command): void {
  program
    .command("password")
    .description("change your password (asked on the terminal; your other sessions end)")
    .action(
      action(async (ctx) => {
        const current = await ask("Current password", true);
        const next = await ask("New password (12 characters or more)", true);
        if (next !== (await ask("New password again", true))) throw new UsageError("the two new passwords differ");
        await (await ctx.api()).call("PUT", "/api/users/me/password", { password: next, current_password: current });
        process.stdout.write("password changed; your other sessions have ended\n");
      }),
    );
}
