// The practical ceiling of this machine for a webhook endpoint: node:http, read the body,
// verify the GitHub signature (HMAC-SHA256 over the exact bytes, length checked before the
// constant-time compare), JSON.parse, answer. No framework, no store.
//   node bench/bare-server.mjs PORT SECRET
// GET /stats answers {ok, bad, unique} (unique = distinct signatures, counted only when
// BARE_TRACK_UNIQUE=1; the harness uses it to prove that every request was signed correctly
// and that bodies really differ).
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";

const port = Number(process.argv[2] ?? 18090);
const secret = process.argv[3] ?? process.env.BARE_SECRET ?? "";
if (!secret) {
  process.stderr.write("usage: node bench/bare-server.mjs PORT SECRET\n");
  process.exit(2);
}
const trackUnique = process.env.BARE_TRACK_UNIQUE === "1";
const seen = new Set();
const stats = { ok: 0, bad: 0, unique: 0 };
const OK = '{"ok":true}';
const BAD = '{"error":"invalid signature"}';

function send(res, status, body) {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function verify(body, header) {
  if (typeof header !== "string" || !header.startsWith("sha256=")) return false;
  const given = Buffer.from(header.slice(7), "hex");
  const want = createHmac("sha256", secret).update(body).digest();
  return given.length === want.length && timingSafeEqual(given, want);
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/stats") return send(res, 200, JSON.stringify(stats));
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const sig = req.headers["x-hub-signature-256"];
    if (!verify(body, sig)) {
      stats.bad++;
      return send(res, 401, BAD);
    }
    try {
      JSON.parse(body.toString("utf8"));
    } catch {
      stats.bad++;
      return send(res, 400, '{"error":"invalid json"}');
    }
    stats.ok++;
    if (trackUnique && !seen.has(sig)) {
      seen.add(sig);
      stats.unique++;
    }
    send(res, 200, OK);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1", () => process.stdout.write(`bare server on 127.0.0.1:${port}\n`));
const stop = () => server.close(() => process.exit(0)) && setTimeout(() => process.exit(0), 1000).unref();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
