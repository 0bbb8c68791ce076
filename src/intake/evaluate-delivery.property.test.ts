import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PROVIDERS, type ProviderName } from "../webhooks/webhook-config.js";
import { hashToken } from "../core/secrets.js";
import { evaluateDelivery } from "./evaluate-delivery.js";
import { deliveryContext, fixture, githubExample, loadGithubExamples, webhookConfig } from "./fixtures/fixtures.js";
import type { BodyAuth } from "../forges/shared/provider.js";
import { tokenMatches } from "../webhooks/webhook-token.js";
import { prepareBody } from "./pipeline/prepare-body.js";
import { providers } from "../forges/providers.js";
import { hmacSha256Hex } from "../forges/shared/verify-signature.js";

const SECRET = "wh_s";
const TOKEN_HASH = hashToken(SECRET);
const examples = loadGithubExamples();
const seeds: Record<string, unknown>[] = [
  githubExample(examples, "pull_request", "opened"),
  githubExample(examples, "issues", "labeled"),
  githubExample(examples, "issue_comment", "created"),
  fixture("gitlab-merge-request-open"),
  fixture("gitlab-issue-label-added"),
  fixture("gitlab-note-merge-request"),
  fixture("forgejo-pull-request-opened"),
  { bot: "review-pr", vars: { a: "1" } },
];
const EVENTS = ["pull_request", "issues", "issue_comment", "pull_request_review_comment", "ping", "push", "Merge Request Hook", "Note Hook", "Issue Hook", ""];

/** Any JSON value, including wrong types for every field. */
const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.string({ minLength: 5000, maxLength: 20000 }),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);

/** Replace the value at a random path of the seed with junk. */
function mutate(seed: unknown, path: number[], value: unknown): unknown {
  if (path.length === 0 || typeof seed !== "object" || seed === null) return value;
  const keys = Object.keys(seed);
  const key = keys[(path[0] ?? 0) % Math.max(keys.length, 1)];
  if (key === undefined) return value;
  const copy: Record<string, unknown> = Array.isArray(seed) ? ([...seed] as unknown as Record<string, unknown>) : { ...(seed as Record<string, unknown>) };
  copy[key] = mutate((seed as Record<string, unknown>)[key], path.slice(1), value);
  return copy;
}

const bodies = fc.oneof(
  fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
  fc.tuple(fc.constantFrom(...seeds), fc.array(fc.nat(), { maxLength: 4 }), junk).map(([s, p, v]) => Buffer.from(JSON.stringify(mutate(s, p, v)))),
  fc.tuple(fc.constantFrom(...seeds), fc.nat()).map(([s, n]) => {
    const text = JSON.stringify(s);
    return Buffer.from(text.slice(0, n % (text.length + 1)));
  }),
);

const headerValues = fc.oneof(fc.string(), fc.constantFrom(...EVENTS), fc.array(fc.string(), { maxLength: 2 }));

/** The arbitrary headers, as a form post when `formIt`, and with the provider's signature and token when `signIt`. */
function deliveryHeaders(
  provider: ProviderName,
  rawBody: Buffer,
  extra: Record<string, string | string[]>,
  { signIt, formIt }: { signIt: boolean; formIt: boolean },
): Record<string, string | string[]> {
  const p = providers[provider];
  const headers: Record<string, string | string[]> = { ...extra };
  if (formIt) headers["content-type"] = "application/x-www-form-urlencoded";
  if (!signIt) return headers;
  const sig = hmacSha256Hex(SECRET, rawBody);
  const name = p.headers.signature[0];
  if (name) headers[name.toLowerCase()] = provider === "forge_b" ? `sha256=${sig}` : sig;
  const token = p.headers.token[0];
  if (token) headers[token.toLowerCase()] = SECRET;
  return headers;
}

/** The webhook's secret, as its provider's first sign mode checks it. */
function bodyAuth(provider: ProviderName): BodyAuth {
  return providers[provider].signModes[0] === "hmac"
    ? { mode: "hmac", secret: SECRET }
    : { mode: "token", verifyToken: (t) => tokenMatches({ token_hash: TOKEN_HASH }, t) };
}

describe("verify + parse + decide never throw", () => {
  it("on arbitrary headers and bodies, signed or not", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<ProviderName>(...PROVIDERS),
        bodies,
        fc.dictionary(fc.constantFrom("x-github-event", "x-gitlab-event", "x-forgejo-event", "x-gitea-event", "content-type", "x-forge-b-event"), headerValues),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 600_000 }),
        (provider, rawBody, extra, signIt, formIt, debounceMs) => {
          const p = providers[provider];
          const headers = deliveryHeaders(provider, rawBody, extra, { signIt, formIt });
          const config = webhookConfig({
            provider,
            sign_mode: p.signModes[0],
            review_on_sync: true,
            event_allowlist: ["*"],
            bot_ids: ["*"],
            wildcard_bots: true,
          });
          const body = prepareBody({ provider, headers, rawBody, auth: bodyAuth(provider) });
          const out = evaluateDelivery({ config, headers, body, context: deliveryContext({ syncDebounceMs: debounceMs }) });
          expect(["filtered", "invalid", "stop", "defer", "launch", "forge"]).toContain(out.decision.kind);
          if (!signIt) expect(out.decision.kind).toBe("invalid");
        },
      ),
      { numRuns: 600 },
    );
  });
});
