#!/usr/bin/env node
import { printable } from "../core/names.js";
import { CommanderError } from "commander";
import { ApiRefusal, UsageError } from "./api.js";
import { buildProgram } from "./program.js";

/** Exit codes: 0 done, 1 the API refused (or could not be reached), 2 the command line is wrong. */
async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof UsageError) {
      process.stderr.write(`remote: ${err.message}\n`);
      return 2;
    }
    if (err instanceof ApiRefusal) {
      process.stderr.write(`remote: ${printable(`${err.error}: ${err.detail}`)}${err.status ? ` (HTTP ${err.status})` : ""}\n`);
      return 1;
    }
    throw err;
  }
}

process.exitCode = await main(process.argv);
