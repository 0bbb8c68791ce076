// The abusive clients of the connection figure, in a process of their own so that the test's
// own probes are not delayed by them: node abuse.mjs PORT DELIVERY_REQUEST_BASE64.
// Prints "ready" once every connection is made; answers each stdin line "status" with a JSON
// line of what is still open; exits on "stop".
import net from "node:net";
import readline from "node:readline";

const port = Number(process.argv[2]);
const delivery = Buffer.from(process.argv[3] ?? "", "base64").toString("utf8");
const connect = () => {
  const s = net.connect(port, "127.0.0.1");
  s.on("error", () => {});
  return s;
};
const opened = (s) => new Promise((resolve) => s.once("connect", resolve).once("close", resolve));

// Connections that send nothing at all.
const silent = Array.from({ length: 1000 }, () => connect().resume());
// Keep-alive connections that asked once and now sit idle.
const idle = Array.from({ length: 1000 }, () => {
  const s = connect().resume();
  s.write("GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: keep-alive\r\n\r\n");
  return s;
});
// Connections that send their headers a line a second and never finish them.
const slow = Array.from({ length: 100 }, () => {
  const s = connect().resume();
  s.write("GET /healthz HTTP/1.1\r\nhost: x\r\n");
  return s;
});
const drip = setInterval(() => {
  for (const s of slow) if (s.writable) s.write(`x-drip-${Date.now()}: 1\r\n`);
}, 1000);
// Connections that pipeline requests as fast as the socket takes them and never read.
let stopped = false;
const batch = Buffer.from(`GET /api/orgs HTTP/1.1\r\nhost: x\r\n\r\n${delivery}`.repeat(64));
const pipeliners = Array.from({ length: 20 }, () => {
  const s = connect();
  s.pause();
  const pump = () => {
    while (!stopped && s.writable && s.write(batch));
  };
  s.on("connect", pump).on("drain", pump);
  return s;
});

await Promise.all([...silent, ...idle, ...slow].map(opened));
console.log("ready");
const stillOpen = (xs) => xs.filter((s) => !s.destroyed && !s.readableEnded).length;
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line === "status") {
    const pipelining = pipeliners.filter((s) => !s.destroyed).length;
    console.log(JSON.stringify({ silent: stillOpen(silent), idle: stillOpen(idle), slow: stillOpen(slow), pipelining }));
  } else if (line === "stop") {
    stopped = true;
    clearInterval(drip);
    for (const s of [...silent, ...idle, ...slow, ...pipeliners]) s.destroy();
    process.exit(0);
  }
}
