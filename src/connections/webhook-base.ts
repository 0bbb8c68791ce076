import { deliveryUrl } from "../webhooks/webhook-views.js";

/** What a connection's webhook base pin becomes (spec rule 3), or why it is refused. */
export type WebhookBase =
  /** `base` null clears the pin; `plainHttp` asks for a logged warning (http on a host other than loopback). */
  { ok: true; base: string | null; plainHttp: boolean } | { ok: false; reason: string };

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Scheme plus host (and port) only: the delivery route is appended to it, so a path, query or credentials are refused. */
export function parseWebhookBase(value: string): WebhookBase {
  const text = value.trim();
  if (text === "") return { ok: true, base: null, plainHttp: false };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "webhook_base_url is not a URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, reason: "webhook_base_url must be http or https" };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "webhook_base_url must not carry credentials" };
  // new URL("https://h") and new URL("https://h/") both have pathname "/"; anything longer is a path.
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || /[?#]$/.test(text)) {
    return { ok: false, reason: "webhook_base_url must be scheme plus host, with no path, query or fragment" };
  }
  return { ok: true, base: url.origin, plainHttp: url.protocol === "http:" && !LOOPBACK.test(url.hostname) };
}

/** The address a forge is told to call for a webhook: the pin (or SERVICE_BASE_URL), then the delivery route. */
export const deliveryAddress = deliveryUrl;
