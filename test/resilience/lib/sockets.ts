/** Raw sockets for the resilience suite: an oversized upload, and a /healthz probe on a connection of its own. */
import net from "node:net";

const connect = (port: number) => {
  const s = net.connect(port, "127.0.0.1");
  s.on("error", () => {});
  return s;
};

/** A POST of `body` after `head`; resolves with the answer's status, or null when closed unanswered. */
export function postRaw(port: number, head: string, body: Buffer): Promise<number | null> {
  return new Promise((resolve) => {
    const s = connect(port);
    let text = "";
    s.on("data", (d) => {
      text += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m) {
        resolve(Number(m[1]));
        s.destroy();
      }
    });
    s.on("close", () => resolve(null));
    s.write(head);
    s.write(body);
  });
}

/** Milliseconds for a GET /healthz on a connection of its own, or Infinity when it failed. */
export async function healthLatency(port: number): Promise<number> {
  const started = performance.now();
  const status = await new Promise<number | null>((resolve) => {
    const s = connect(port);
    const timer = setTimeout(() => {
      s.destroy();
      resolve(null);
    }, 5000);
    s.on("data", (d) => {
      clearTimeout(timer);
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(d.toString("latin1"))?.[1] ?? 0));
      s.destroy();
    });
    s.on("close", () => resolve(null));
    s.write("GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
  });
  return status === 200 ? performance.now() - started : Infinity;
}
