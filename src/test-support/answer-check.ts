import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { AnySchema, ValidateFunction } from "ajv";
import { SHARED_SCHEMAS } from "../http/routes/route-docs.js";

/** Answers that are not the API's JSON: the document itself. */
const UNCHECKED = new Set(["/api/openapi.json"]);

/**
 * Checks each JSON answer a test receives against the response schema the OpenAPI document gives
 * its route and status (app.ts's `onAnswer`): an undocumented field, a wrong type, a value outside
 * its enum or a status the route does not document is a fault. The harness fails a test file
 * whose app saw one, so every route test also tests the document.
 */
export function answerChecker() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  for (const s of SHARED_SCHEMAS) ajv.addSchema(s as AnySchema);
  const compiled = new WeakMap<object, ValidateFunction>();
  const faults: string[] = [];
  /** Every answer checked, as `METHOD route → status`. */
  const checked: string[] = [];
  const check = (a: { method: string; route: string; status: number; schema: unknown; payload: unknown }) => {
    if (!a.route.startsWith("/api/") || UNCHECKED.has(a.route)) return;
    const where = `${a.method} ${a.route} → ${a.status}`;
    checked.push(where);
    if (!a.schema || typeof a.schema !== "object") {
      faults.push(`${where}: the document gives no schema for this status`);
      return;
    }
    let validate = compiled.get(a.schema);
    if (!validate) {
      validate = ajv.compile(a.schema as AnySchema);
      compiled.set(a.schema, validate);
    }
    // Checked as it goes on the wire: dates as strings, no undefined.
    const sent: unknown = JSON.parse(JSON.stringify(a.payload) ?? "null");
    if (!validate(sent)) {
      const errors = (validate.errors ?? []).map(
        (e) => `${e.instancePath || "/"} ${e.message ?? ""}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
      );
      faults.push(`${where}: ${[...new Set(errors)].join("; ")}`);
    }
  };
  return { check, faults, checked };
}
