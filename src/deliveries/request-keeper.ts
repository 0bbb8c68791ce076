import type { IncomingHttpHeaders } from "node:http";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import { inBatches, Periodic } from "../core/periodic.js";
import type { Sealer } from "../core/sealer.js";
import { providers } from "../forges/providers.js";
import { deleteKeptRequestsBefore, findKeptRequestOf, insertKeptRequest, linkKeptRequest } from "../store/kept-requests.js";
import type { Store } from "../store/store.js";
import type { ProviderName } from "../webhooks/webhook-config.js";
import type { KeptRequestSettings } from "../config/config.js";

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** What replaces a header that proves a delivery. */
export const REDACTED = "[redacted]";
/** Headers that carry a credential on any provider: never kept. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);
/** Standard Webhooks' signature header (sign_mode standard). */
const STANDARD_SIGNATURE = "webhook-signature";

/** How often every replica forgets expired requests, and how many per statement. */
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 500;

export type Headers = Record<string, string | string[]>;

/** A kept request opened: its headers as kept (signatures included, tokens not), and its body when it was kept. */
export interface OpenedRequest {
  id: string;
  provider: ProviderName;
  headers: Headers;
  body: Buffer | null;
  bodyBytes: number;
  sourceIp: string | null;
  createdAt: number;
  expiresAt: number;
}

/**
 * Deliveries' requests kept as they arrived, for webhooks that ask (`keep_payloads`): the
 * headers without the tokens, the body gzipped up to a cap, both sealed under the seal key and
 * bound to the webhook and the request; forgotten after the retention period. A body is never
 * logged.
 */
export class RequestKeeper {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;

  constructor(private readonly deps: { store: Store; clock: Clock; ids: IdGenerator; sealer: Sealer; settings: KeptRequestSettings; log: Logger }) {
    this.periodic = new Periodic(SWEEP_EVERY_MS, () => this.tick(deps.clock.now()));
  }

  /** Keeps a request whose delivery rows are committed; `deliveryIds` are those rows. */
  async keep(input: {
    tenantId: string;
    webhookId: string;
    provider: ProviderName;
    headers: IncomingHttpHeaders | Headers;
    body: Buffer;
    sourceIp: string | null;
    deliveryIds: readonly string[];
  }): Promise<void> {
    if (input.deliveryIds.length === 0) return;
    const { sealer, settings, store } = this.deps;
    const id = this.deps.ids.next("req");
    const kept = keptHeaders(input.provider, input.headers);
    const headers = sealer.seal(JSON.stringify(kept), context(input.webhookId, id, "headers"));
    const fits = input.body.length <= settings.maxBodyBytes;
    const body = fits ? sealer.sealBytes(await gzipAsync(input.body), context(input.webhookId, id, "body")) : undefined;
    await store.tx((tx) =>
      insertKeptRequest(
        tx,
        {
          id,
          tenant_id: input.tenantId,
          webhook_id: input.webhookId,
          provider: input.provider,
          key_id: headers.keyId,
          headers: headers.blob,
          body: body?.blob ?? null,
          body_bytes: input.body.length,
          source_ip: input.sourceIp,
          created_at: this.deps.clock.now(),
        },
        input.deliveryIds,
      ),
    );
  }

  /** The kept request that gave a delivery row of `webhookId`, opened; undefined when none is kept. */
  async open(webhookId: string, deliveryId: string): Promise<OpenedRequest | undefined> {
    const row = await findKeptRequestOf(this.deps.store.db, deliveryId);
    if (!row || row.webhook_id !== webhookId) return undefined;
    const { sealer } = this.deps;
    const headers = JSON.parse(sealer.open({ keyId: row.key_id, blob: row.headers }, context(webhookId, row.id, "headers"))) as Headers;
    const body = row.body === null ? null : await gunzipAsync(sealer.openBytes({ keyId: row.key_id, blob: row.body }, context(webhookId, row.id, "body")));
    return {
      id: row.id,
      provider: row.provider as ProviderName,
      headers,
      body,
      bodyBytes: Number(row.body_bytes),
      sourceIp: row.source_ip,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.created_at) + this.deps.settings.retentionMs,
    };
  }

  /** Rows a kept request gave later (a redelivery's) are named by it too. */
  link(requestId: string, deliveryIds: readonly string[]): Promise<void> {
    return this.deps.store.tx((tx) => linkKeptRequest(tx, requestId, deliveryIds));
  }

  /** One retention pass: forgets the requests kept longer than the retention period. */
  tick(now: number): Promise<number> {
    return inBatches(SWEEP_BATCH, (limit) => this.deps.store.tx((tx) => deleteKeptRequestsBefore(tx, now - this.deps.settings.retentionMs, limit)));
  }
}

const context = (webhookId: string, requestId: string, part: "headers" | "body") => `kept-request:${webhookId}:${requestId}:${part}`;

/** The headers to keep: a token (or any credential header) is replaced by {@link REDACTED}; signatures are kept, to be checked again. */
function keptHeaders(provider: ProviderName, headers: IncomingHttpHeaders | Headers): Headers {
  const tokens = new Set(providers[provider].headers.token.map((h) => h.toLowerCase()));
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] = tokens.has(lower) || CREDENTIAL_HEADERS.has(lower) ? REDACTED : value;
  }
  return out;
}

/** The headers as a reader sees them: signatures redacted too. */
export function shownHeaders(provider: ProviderName, headers: Headers): Headers {
  const signatures = new Set([...providers[provider].headers.signature.map((h) => h.toLowerCase()), STANDARD_SIGNATURE]);
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) out[name] = signatures.has(name) ? REDACTED : value;
  return out;
}

/** The headers a redelivery sends: those kept, without the redacted ones. */
export function replayHeaders(headers: Headers): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) if (value !== REDACTED) out[name] = value;
  return out;
}
