import { Type, type Static, type TSchema } from "typebox";
import { Value } from "typebox/value";
import { forgeFailure } from "./forge-errors.js";

/** A forge's id: a number (octokit parses ids past 2^53 as bigint), or GitLab's hex discussion id. */
export const AnswerId = Type.Union([Type.Number(), Type.BigInt(), Type.String()]);

export const idText = (id: Static<typeof AnswerId>): string => String(id);

/**
 * A forge's answer, checked against a small schema naming only the fields we read (extra
 * fields pass: self-hosted forges differ by version). An answer that does not fit is the
 * forge failing, not us.
 */
export function parseAnswer<S extends TSchema>(schema: S, data: unknown, what: string): Static<S> {
  if (Value.Check(schema, data)) return data;
  throw forgeFailure("forge_unavailable", `the forge's answer for ${what} is not the expected shape`);
}
