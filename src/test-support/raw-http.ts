import net from "node:net";

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A POST with exactly these headers over a socket of its own; `chunks` are framed as chunks when
 * the body is chunked. With `end: false` the request is left unfinished: the answer must not wait for it.
 */
export async function rawPost(port: number, path: string, headers: Record<string, string>, chunks: string[], opts: { end?: boolean } = {}): Promise<RawAnswer> {
  const chunked = headers["transfer-encoding"] === "chunked";
  const head = `POST ${path} HTTP/1.1\r\nhost: test\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`;
  const body = chunks.map((c) => (chunked ? `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n` : c)).join("");
  const answer = await rawExchange(port, head + body + (opts.end !== false && chunked ? "0\r\n\r\n" : ""));
  if (answer === "closed") throw new Error(`POST ${path}: closed without an answer`);
  return answer;
}

/** Writes `bytes` as they are and reads until the server answers or closes: the answer, or "closed". */
export function rawExchange(port: number, bytes: string | Buffer): Promise<RawAnswer | "closed"> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (d) => {
      received += d.toString("utf8");
      const answer = parseAnswer(received);
      if (answer) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on("close", () => resolve("closed"));
    socket.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" ? resolve("closed") : reject(err)));
    socket.write(bytes);
  });
}

function parseAnswer(text: string): RawAnswer | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  const body = text.slice(end + 4);
  if (Buffer.byteLength(body) < Number(headers["content-length"] ?? 0)) return undefined;
  return { status: Number(statusLine!.split(" ")[1]), headers, body };
}
