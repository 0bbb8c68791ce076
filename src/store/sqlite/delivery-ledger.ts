import type { DeliveryLedger } from "../delivery-ledger.js";
import { admitOnSqlite } from "./admit-webhook-call.js";
import { commitOnSqlite } from "./commit-delivery.js";
import type { EventLoopLoad } from "./event-loop-load.js";
import type { GroupCommit } from "./group-commit.js";
import type { SqliteWriter } from "./writer.js";

/**
 * SQLite's ledger: each commit one transaction of the shared commit ({@link GroupCommit}); for a
 * file store, on the writer thread while the event loop is busy. Handing a delivery to the thread
 * and taking its answer back are two thread wake-ups: worth it only when the event loop has no
 * time for the writes itself.
 */
export function sqliteLedger(group: GroupCommit, writer?: SqliteWriter, load?: EventLoopLoad): DeliveryLedger {
  const here: DeliveryLedger["commit"] = (c) => group.run((tx) => commitOnSqlite(tx, c));
  return {
    commit: writer && load ? (c) => (load.busy ? writer.commit(c) : here(c)) : here,
    admit: (limits) => group.run((tx) => admitOnSqlite(tx, limits)),
  };
}
