import { describe, expect, it } from "vitest";
import { decideDelivery } from "./decide-delivery.js";
import type { ForgeProviderName } from "../../forges/shared/forge-client.js";
import { deliveryContext, fixture, forgeEvent, githubExample, loadGithubExamples, webhookConfig } from "../fixtures/fixtures.js";

/**
 * A fork is a head repository other than the base, proven by id or by name: either one
 * differing is a fork (fail closed), so a payload whose head and base share a name but not an
 * id (a fork under another owner id, a rename) never auto-launches, and neither does one whose
 * ids agree but names do not. Names compare case-insensitively.
 */
const examples = loadGithubExamples();
type Payload = Record<string, unknown>;
type Mutate = (p: Payload) => void;
const obj = (v: unknown) => v as Payload;

interface ForkCase {
  provider: ForgeProviderName;
  eventName: string;
  /** Every action that auto-launches a review on this provider, as a fresh payload. */
  autoLaunches: Array<[string, () => Payload]>;
  headRepo: (p: Payload) => { setId(id: number): void; setName(name: string): void };
  base: string;
}

const ghHead = (p: Payload) => {
  const head = obj(obj(p.pull_request).head);
  const repo = obj(head.repo);
  return {
    setId: (id: number) => {
      repo.id = id;
      if ("repo_id" in head) head.repo_id = id; // Gitea also sends head.repo_id
    },
    setName: (name: string) => (repo.full_name = name),
  };
};

const cases: ForkCase[] = [
  {
    provider: "forge_b",
    eventName: "pull_request",
    autoLaunches: ["opened", "reopened", "ready_for_review", "synchronize"].map((a) => [a, () => githubExample(examples, "pull_request", a)]),
    headRepo: ghHead,
    base: "Codertocat/Hello-World",
  },
  {
    provider: "forge_c",
    eventName: "pull_request",
    autoLaunches: [
      ["opened", () => fixture("forgejo-pull-request-opened")],
      ["reopened", () => ({ ...fixture("forgejo-pull-request-opened"), action: "reopened" })],
      ["synchronized", () => fixture("forgejo-pull-request-synchronized")],
    ],
    headRepo: ghHead,
    base: "acme/widgets",
  },
  {
    provider: "forge_a",
    eventName: "Merge Request Hook",
    autoLaunches: [
      ["open", () => fixture("gitlab-merge-request-open")],
      ["reopen", () => fixture("gitlab-merge-request-reopen")],
      ["update draft → ready", () => fixture("gitlab-merge-request-update-draft-to-ready")],
    ],
    headRepo: (p) => {
      const mr = obj(p.object_attributes);
      return {
        setId: (id: number) => {
          mr.source_project_id = id;
          obj(mr.source).id = id;
        },
        setName: (name: string) => (obj(mr.source).path_with_namespace = name),
      };
    },
    base: "acme/platform/gitlab-test",
  },
];

const rows = cases.flatMap((c) => c.autoLaunches.map(([action, payload]) => [c.provider, action, c, payload] as const));

function decide(c: ForkCase, payload: () => Payload, mutate?: Mutate) {
  const p = payload();
  mutate?.(p);
  const config = webhookConfig({ provider: c.provider, review_on_sync: true, ...(c.provider === "forge_a" ? { sign_mode: "token" as const } : {}) });
  return decideDelivery(config, forgeEvent(c.provider, c.eventName, p), deliveryContext());
}

describe.each(rows)("fork detection on %s, %s", (_provider, _action, c, payload) => {
  it("launches the unchanged payload (the cases below differ from it by one field)", () => {
    expect(decide(c, payload).kind).toBe("launch");
  });

  it("head and base differing only by repository id is a fork: filtered, no launch", () => {
    expect(decide(c, payload, (p) => c.headRepo(p).setId(990_001))).toEqual({ kind: "filtered", reason: `fork: ${c.base} → ${c.base}` });
  });

  it("head and base differing only by name, same id, is a fork too: filtered, no launch", () => {
    const head = `mallory/${c.base.split("/").pop()}`;
    expect(decide(c, payload, (p) => c.headRepo(p).setName(head))).toEqual({ kind: "filtered", reason: `fork: ${head} → ${c.base}` });
  });

  it("a name differing only in case, same id, is the same repository", () => {
    expect(decide(c, payload, (p) => c.headRepo(p).setName(c.base.toUpperCase())).kind).toBe("launch");
  });
});
