import type { Kysely } from "kysely";
import type { Database } from "./schema/index.js";

export type StoreKind = "sqlite" | "postgres";
/** The query handle every store operation takes: the store's own, or a transaction's. */
export type Db = Kysely<Database>;
