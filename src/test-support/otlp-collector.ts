import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A span as the collector got it, with its attributes flattened and its ids in hex (as OTLP/JSON has them). */
export interface CollectedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
}
export const SPAN_SERVER = 2;
export const SPAN_CLIENT = 3;
export const STATUS_ERROR = 2;

/**
 * A stand-in OTLP/HTTP collector: takes POST /v1/traces as JSON (`application/json`) or protobuf
 * (`application/x-protobuf`), keeps each body as it came (to search for what must not be there)
 * and the spans it carries.
 */
export class FakeCollector {
  readonly bodies: string[] = [];
  readonly contentTypes: string[] = [];
  readonly headers: Record<string, unknown>[] = [];
  readonly resources: Record<string, unknown>[] = [];
  readonly spans: CollectedSpan[] = [];
  private server!: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks);
        const type = String(req.headers["content-type"]);
        const json = type.includes("json");
        if (req.method !== "POST" || req.url !== "/v1/traces" || (!json && !type.includes("protobuf"))) {
          res.writeHead(404).end();
          return;
        }
        this.bodies.push(raw.toString(json ? "utf8" : "latin1"));
        this.contentTypes.push(type);
        this.headers.push(req.headers);
        this.take(json ? JSON.parse(raw.toString("utf8")) : decodeRequest(raw));
        if (json) res.writeHead(200, { "content-type": "application/json" }).end("{}");
        else res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Forgets what came so far. */
  clear(): void {
    for (const list of [this.bodies, this.contentTypes, this.headers, this.resources, this.spans]) list.length = 0;
  }

  private take(body: any): void {
    for (const rs of body.resourceSpans ?? []) {
      this.resources.push(flatten(rs.resource?.attributes));
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) this.spans.push({ ...s, attributes: flatten(s.attributes), status: s.status ?? {} });
      }
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function flatten(attributes: Array<{ key: string; value: Record<string, unknown> }> = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes)
    out[key] = value.stringValue ?? value.boolValue ?? (value.intValue === undefined ? value.doubleValue : Number(value.intValue));
  return out;
}

/** A protobuf message's fields: number → values (varints as bigint, length-delimited as bytes, fixed64 as a double's bytes). */
type Fields = Map<number, Array<bigint | Buffer>>;

function fields(buf: Buffer): Fields {
  const out: Fields = new Map();
  let at = 0;
  const varint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[at++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  while (at < buf.length) {
    const key = Number(varint());
    const [no, wire] = [key >> 3, key & 7];
    const take = (len: number): Buffer => {
      const part = buf.subarray(at, at + len);
      at += len;
      return part;
    };
    let value: bigint | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 1) value = take(8);
    else if (wire === 2) value = take(Number(varint()));
    else if (wire === 5) value = take(4);
    else throw new Error(`protobuf wire type ${wire} not expected in OTLP`);
    out.set(no, [...(out.get(no) ?? []), value]);
  }
  return out;
}

const bytes = (f: Fields, no: number) => (f.get(no) ?? []).filter((v): v is Buffer => Buffer.isBuffer(v));
const one = (f: Fields, no: number) => bytes(f, no)[0];
const num = (f: Fields, no: number) => {
  const v = f.get(no)?.[0];
  return typeof v === "bigint" ? Number(v) : undefined;
};

/** KeyValue { key = 1; AnyValue value = 2 } with AnyValue { string 1, bool 2, int 3, double 4 }, as OTLP/JSON spells it. */
function keyValues(list: Buffer[]) {
  return list.map((kv) => {
    const f = fields(kv);
    const v = fields(one(f, 2) ?? Buffer.alloc(0));
    const value: Record<string, unknown> = {};
    if (v.has(1)) value.stringValue = one(v, 1)!.toString("utf8");
    else if (v.has(2)) value.boolValue = num(v, 2) === 1;
    else if (v.has(3)) value.intValue = String(BigInt.asIntN(64, v.get(3)![0] as bigint));
    else if (v.has(4)) value.doubleValue = (v.get(4)![0] as Buffer).readDoubleLE(0);
    return { key: one(f, 1)!.toString("utf8"), value };
  });
}

/** ExportTraceServiceRequest { ResourceSpans resource_spans = 1 } in the shape of its OTLP/JSON form. */
function decodeRequest(buf: Buffer) {
  return {
    resourceSpans: bytes(fields(buf), 1).map((rsBuf) => {
      const rs = fields(rsBuf);
      const resource = fields(one(rs, 1) ?? Buffer.alloc(0));
      return {
        resource: { attributes: keyValues(bytes(resource, 1)) },
        scopeSpans: bytes(rs, 2).map((ssBuf) => ({
          spans: bytes(fields(ssBuf), 2).map((spanBuf) => {
            const s = fields(spanBuf);
            const status = fields(one(s, 15) ?? Buffer.alloc(0));
            const parent = one(s, 4);
            return {
              traceId: one(s, 1)!.toString("hex"),
              spanId: one(s, 2)!.toString("hex"),
              ...(parent && parent.length > 0 && { parentSpanId: parent.toString("hex") }),
              name: one(s, 5)!.toString("utf8"),
              kind: num(s, 6) ?? 0,
              attributes: keyValues(bytes(s, 9)),
              status: { ...(status.has(2) && { message: one(status, 2)!.toString("utf8") }), ...(status.has(3) && { code: num(status, 3) }) },
            };
          }),
        })),
      };
    }),
  };
}
