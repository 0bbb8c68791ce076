import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, storeKinds, type TestStore } from "../../test-support/harness.js";
import { openStore, type Db } from "../store.js";
import { PG_FUNCTIONS, pgFunctionSource } from "./install-functions.js";

interface Installed {
  name: string;
  signature: string;
  body: string;
}

/** Every function and procedure in the store's schema, with its body as PostgreSQL holds it. */
async function installed(db: Db): Promise<Installed[]> {
  const { rows } = await sql<Installed>`
    select proname as name, oid::regprocedure::text as signature, prosrc as body from pg_proc
    where pronamespace = current_schema()::regnamespace order by proname, signature
  `.execute(db);
  return rows;
}

/** The current source's functions, each with the body between its `$fn$` quotes. */
async function currentSource(): Promise<{ name: string; body: string }[]> {
  const sources = await Promise.all(PG_FUNCTIONS.map(async (name) => ({ name, text: await pgFunctionSource(name) })));
  return sources.map(({ name, text }) => ({ name, body: /\$fn\$([\s\S]*)\$fn\$/.exec(text)![1]! })).sort((a, b) => a.name.localeCompare(b.name));
}

describe.skipIf(!storeKinds().includes("postgres"))("PostgreSQL functions installed from their current source", () => {
  let ts: TestStore;
  let schema: string;
  const openAgain = () => openStore({ databaseUrl: process.env.SERVICE_TEST_DATABASE_URL!, pgSchema: schema, pgPoolSize: 2 });

  beforeAll(async () => {
    ts = await openTestStore("postgres");
    schema = (await sql<{ s: string }>`select current_schema() as s`.execute(ts.store.db)).rows[0]!.s;
  });
  afterAll(() => ts.close());

  it("installs exactly the current source on a fresh schema, each function once", async () => {
    const found = await installed(ts.store.db);
    expect(found.map(({ name, body }) => ({ name, body }))).toEqual(await currentSource());
  });

  it("replaces the bodies an older migration installed and drops the dead functions on start", async () => {
    const db = ts.store.db;
    // As a database the old migrations built: other bodies under the same signatures, the unused functions, no 0016 or 0018 yet.
    await sql`create or replace function admit_webhook_calls(p_calls jsonb) returns text[] language sql as $fn$ select '{}'::text[] $fn$`.execute(db);
    await sql`create or replace function launch_delivery(p_team text, p_run jsonb, p_delivery jsonb, p_month text, p_now bigint)
      returns jsonb language sql as $fn$ select null::jsonb $fn$`.execute(db);
    await sql`create or replace procedure deliver_webhook_calls(p_calls jsonb, inout answers jsonb default null)
      language plpgsql as $fn$ begin answers := null; end $fn$`.execute(db);
    await sql`create function write_webhook_delivery(p_team text, p_run jsonb, p_delivery jsonb, p_month text, p_duplicate_id text)
      returns jsonb language sql as $fn$ select null::jsonb $fn$`.execute(db);
    await sql`delete from kysely_migration where name in ('0016_drop_dead_functions', '0018_drop_launch_delivery')`.execute(db);
    expect((await installed(db)).map((f) => f.name)).toEqual(expect.arrayContaining(["write_webhook_delivery", "launch_delivery"]));

    const store = await openAgain();
    await store.close();
    const found = await installed(db);
    expect(found.map(({ name, body }) => ({ name, body }))).toEqual(await currentSource());
    expect(found.map((f) => f.signature)).toEqual([
      "add_org_runs(text[],text[],bigint)",
      "admit_webhook_call(text,text,double precision,double precision,bigint,bigint,text,bigint)",
      "admit_webhook_calls(jsonb)",
      "deliver_webhook_calls(jsonb,jsonb)",
    ]);
  });

  it("lets replicas start together on one database", async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, openAgain));
    await Promise.all(stores.map((s) => s.close()));
    expect((await installed(ts.store.db)).map(({ name, body }) => ({ name, body }))).toEqual(await currentSource());
  });
});
