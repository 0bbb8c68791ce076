/** Raw sockets that misbehave as an attacker's would: silent, idle, slow, pipelining, oversized. */
import net from "node:net";
import { sleep } from "./proc.js";

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

/** Connections that send nothing at all. */
export const silent = (port: number, n: number) => Array.from({ length: n }, () => connect(port).resume());

/** Keep-alive connections that asked once and now sit idle. */
export function idleKeepAlive(port: number, n: number): net.Socket[] {
  return Array.from({ length: n }, () => {
    const s = connect(port).resume();
    s.write("GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: keep-alive\r\n\r\n");
    return s;
  });
}

/** Connections that send their headers a line a second, and never finish them. */
export function slowloris(port: number, n: number): { sockets: net.Socket[]; stop: () => void } {
  const sockets = Array.from({ length: n }, () => connect(port).resume());
  for (const s of sockets) s.write("GET /healthz HTTP/1.1\r\nhost: x\r\n");
  const drip = setInterval(() => {
    for (const s of sockets) if (s.writable) s.write(`x-drip-${Date.now()}: 1\r\n`);
  }, 1000);
  return { sockets, stop: () => clearInterval(drip) };
}

/**
 * Connections that pipeline `request` as fast as the socket takes it and never read an answer;
 * each one closed is opened again until `stop`. Counts the connections it opened.
 */
export function pipeliners(port: number, n: number, request: string): { opened: () => number; stop: () => void } {
  let stopped = false;
  let opened = 0;
  const batch = Buffer.from(request.repeat(64));
  const open = () => {
    if (stopped) return;
    opened++;
    const s = connect(port);
    s.pause();
    const pump = () => {
      while (!stopped && s.writable && s.write(batch));
    };
    s.on("connect", pump)
      .on("drain", pump)
      .on("close", () => void sleep(500).then(open));
  };
  for (let i = 0; i < n; i++) open();
  return { opened: () => opened, stop: () => (stopped = true) };
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
