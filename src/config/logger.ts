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

/** JSON logs (pino); tokens, secrets, Authorization and request bodies never appear. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: "[redacted]" } };
  return destination ? pino(options, destination) : pino(options);
}
