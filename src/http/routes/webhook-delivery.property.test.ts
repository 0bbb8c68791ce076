import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, type TestApp } from "../../test-support/harness.js";

const HEADER_NAMES = [
  "x-github-event",
  "x-hub-signature-256",
  "x-forge-b-signature-256",
  "x-gitlab-event",
  "x-gitlab-token",
  "x-forgejo-signature",
  "x-gitea-signature",
  "x-gitea-event",
  "x-service-webhook-token",
  "x-service-webhook-signature",
  "content-type",
  "x-github-delivery",
];
const EVENTS = ["pull_request", "issues", "ping", "push", "Merge Request Hook", "Issue Hook", "Note Hook", "", "💥"];

describe("the delivery endpoint under malformed input", () => {
  let t: TestApp;
  const targets: { provider: string; id: string; token: string }[] = [];

  beforeAll(async () => {
    t = await startTestApp("sqlite");
    const seed = await seedTenancy(t);
    for (const provider of ["forge_a", "forge_b", "forge_c", "generic"]) {
      const r = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider, bot_ids: ["review-pr"], burst: 100_000, rate: 10_000 });
      targets.push({ provider, id: r.body.config.id, token: r.body.token });
    }
  });
  afterAll(() => t.close());

  it("never answers 5xx and never throws, whatever the headers and body", async () => {
    const header = fc.tuple(
      fc.constantFrom(...HEADER_NAMES),
      fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom(...EVENTS), fc.constant("sha256="), fc.stringMatching(/^[0-9a-f]{64}$/)),
    );
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
      fc.json().map((j) => Buffer.from(j)),
      fc
        .jsonValue()
        .map((v) => Buffer.from(JSON.stringify({ action: "opened", pull_request: v, repository: v, object_kind: "merge_request", object_attributes: v }))),
      fc.string().map((s) => Buffer.from(`payload=${encodeURIComponent(s)}`)),
    );
    const provider = fc.oneof(fc.constantFrom("forge_a", "forge_b", "forge_c", "generic", "github", "nope", "%00", ""), fc.string({ maxLength: 10 }));
    await fc.assert(
      fc.asyncProperty(
        fc.nat(targets.length - 1),
        provider,
        fc.array(header, { maxLength: 6 }),
        body,
        fc.boolean(),
        async (i, p, headers, payload, useToken) => {
          const target = targets[i]!;
          const h: Record<string, string> = Object.fromEntries(headers.map(([k, v]) => [k, v.replace(/[^\t\x20-\x7e]/g, "")]));
          if (useToken) h["x-gitlab-token"] = target.token;
          const res = await t.app.inject({
            method: "POST",
            url: `/api/webhooks/${encodeURIComponent(p || target.provider)}/${target.id}`,
            headers: h,
            payload,
          });
          expect(res.statusCode, res.body).toBeLessThan(500);
        },
      ),
      { numRuns: 400 },
    );
  });
});
