import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { commandDelivery, deliver, fakeOf, FORGES, forgeHook, startForgeWorld, type Forge, type ForgeWorld } from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

const cases = storeKinds().flatMap((kind) => FORGES.map((forge) => [kind, forge] as const));
const REACTION = /reactions|award_emoji/;

/** Beyond the spec: 👀 on an accepted command, one reply explaining an actionable refusal; both per webhook, off by default. */
describe.each(cases)("what the service says on the forge, on %s, %s", (kind, forge: Forge) => {
  let w: ForgeWorld;
  const fake = () => fakeOf(w, forge);
  /** The writes the forge received for one command: "METHOD /path" and the text posted. */
  const command = async (fields: Record<string, unknown>, body: string, by: string = WORLD.maria.login, onIssue = false) => {
    const hook = await forgeHook(w, forge, fields);
    const d = commandDelivery(forge, body, by, { onIssue });
    const from = fake().requests.length;
    const res = await deliver(w, hook, d.event, d.payload);
    const writes = fake()
      .requests.slice(from)
      .filter((r) => r.method === "POST")
      .map((r) => ({ call: `POST ${r.path}`, text: String((r.body as { body?: unknown }).body ?? "") }));
    return { res, writes };
  };
  const both = { acknowledge_commands: true, explain_refusals: true };

  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());
  beforeEach(() => {
    w.t.clock.advance(60_000);
    fake().clearFaults();
  });

  it("off by default: an accepted command posts nothing", async () => {
    const { res, writes } = await command({}, "/re-review");
    expect(res.body.status).toBe("launched");
    expect(writes).toEqual([]);
  });

  it("acknowledge_commands answers an accepted command with 👀 on its comment", async () => {
    const { res, writes } = await command({ acknowledge_commands: true }, "/re-review");
    expect(res.body.status).toBe("launched");
    expect(writes).toHaveLength(1);
    expect(writes[0]?.call).toMatch(REACTION);
  });

  it("on an issue too: the 👀 and the explanation go to the issue's comment", async () => {
    const accepted = await command({ ...both, bot_ids: ["improve"] }, "/improve add a pool", WORLD.maria.login, true);
    expect(accepted.res.body.status).toBe("launched");
    expect(accepted.writes.map((x) => x.call)).toEqual([expect.stringMatching(forge === "forge_a" ? /\/issues\/3\/notes\/\d+\/award_emoji$/ : REACTION)]);
    const refused = await command(both, "/improve", "drive-by", true);
    expect(refused.writes).toEqual([
      {
        call: expect.stringMatching(forge === "forge_a" ? /\/issues\/3\/discussions\/[0-9a-f]+\/notes$/ : /\/issues\/7\/comments$/),
        text: expect.stringMatching(/needs a repository role/),
      },
    ]);
  });

  it("explain_refusals tells a commenter without the role why, once", async () => {
    const { res, writes } = await command(both, "/re-review", "drive-by");
    expect(res.body.status).toBe("filtered");
    expect(writes).toEqual([{ call: expect.not.stringMatching(REACTION), text: expect.stringMatching(/needs a repository role of at least developer/) }]);
  });

  it("explain_refusals lists the known commands to a permitted commenter who typed an unknown one", async () => {
    const { res, writes } = await command(both, "/frobnicate");
    expect(res.body).toMatchObject({ status: "filtered", reason: "unknown command: /frobnicate" });
    expect(writes.map((x) => x.text)).toEqual(["`/frobnicate` is not a command here. Known: `/improve`, `/re-review`."]);
  });

  it("an unknown command from someone without the role gets no reply", async () => {
    const { writes } = await command(both, "/frobnicate", "drive-by");
    expect(writes).toEqual([]);
  });

  it("a fork is explained", async () => {
    const restore = forkHead(w, forge);
    const { res, writes } = await command(both, "/improve");
    restore();
    expect(res.body.reason).toMatch(/fork proven by repository id/);
    expect(writes.map((x) => x.text)).toEqual([expect.stringMatching(/comes from a fork/)]);
  });

  it("nothing is posted when the forge failed (rule 7)", async () => {
    fake().fault({ match: /pulls\/7$|merge_requests\/7$/, status: 500 });
    const { res, writes } = await command(both, "/re-review");
    expect(res.body.status).toBe("launch_error");
    expect(writes).toEqual([]);
  });
});

/** Makes the pull request's head a fork on the fake forge; returns the undo. */
function forkHead(w: ForgeWorld, forge: Forge): () => void {
  if (forge === "forge_a") {
    const mr = w.gitlab.mergeRequests.get(`${WORLD.repoId}!${WORLD.number}`)!;
    mr.sourceProjectId = WORLD.fork.id;
    return () => (mr.sourceProjectId = WORLD.repoId);
  }
  const pull = forge === "forge_b" ? w.github.pull() : w.forgejo.pulls.get(`${WORLD.repo}#${WORLD.number}`)!;
  pull.headRepo = { id: WORLD.fork.id, fullName: WORLD.fork.fullName };
  return () => (pull.headRepo = { id: WORLD.repoId, fullName: WORLD.repo });
}
