import { pino, type DestinationStream, type Logger } from "pino";

/** Header names and body paths the log must never print. */
const REDACT = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-gitlab-token"]',
  'req.headers["x-forge-a-token"]',
  'req.headers["x-service-webhook-token"]',
  "token",
  "*.token",
  "secret",
  "*.secret",
  "body",
  "req.body",
];

/** How long a log line may wait in stdout's buffer before it is written. */
const FLUSH_EVERY_MS = 250;

/**
 * JSON logs (pino); tokens, secrets, Authorization and request bodies never appear. On stdout
 * the lines are written in batches of up to 4 KiB, at least every 250 ms and at exit, rather
 * than one write each: the access line is written for every delivery (bench/ANALYSIS.md, section 30).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: "[redacted]" } };
  if (destination) return pino(options, destination);
  const stdout = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => stdout.flush(), FLUSH_EVERY_MS).unref();
  return pino(options, stdout);
}
