import type { Migration } from "kysely";
import { m0001Tenancy } from "./0001-tenancy.js";

/** Numbered migrations; a landed one is never edited, a change is a new number. */
export const migrations: Record<string, Migration> = {
  "0001_tenancy": m0001Tenancy,
};
