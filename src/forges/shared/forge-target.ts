/** Where one lane's calls go: the webhook's forge_base_url (null for the public forge) and its forge token. */
export interface ForgeTarget {
  forgeBaseUrl: string | null;
  token: string;
}

/** null stays null (the public forge); anything but a plain http(s) URL is refused. */
export function parseForgeBaseUrl(value: string | null): URL | null | "bad" {
  if (value === null || value.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return "bad";
  }
  const plain = (url.protocol === "https:" || url.protocol === "http:") && url.username === "" && url.password === "" && url.search === "" && url.hash === "";
  return plain ? url : "bad";
}
