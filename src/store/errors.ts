import { WRITER_STOPPED } from "./sqlite/writer.js";

/** PostgreSQL and socket error codes that mean "the store cannot be reached right now". */
const UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "57P01",
  "57P02",
  "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
  "08000",
  "08001",
  "08003",
  "08004",
  "08006", // connection exceptions
  "53300", // too_many_connections
  "SQLITE_BUSY",
  "SQLITE_IOERR",
  "SQLITE_FULL",
  "SQLITE_CANTOPEN",
  "SQLITE_READONLY",
  WRITER_STOPPED,
]);

/** True when an error says the store is unreachable or overloaded rather than the query wrong. */
export function isStoreUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE.has(code) || code.startsWith("SQLITE_IOERR"))) return true;
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === "string" &&
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(message)
    ) {
      return true;
    }
  }
  return false;
}

/** True for a unique-constraint violation on either store. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
