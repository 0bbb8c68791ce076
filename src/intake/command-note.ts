/**
 * A note is a command only when its first non-blank, non-quote line starts with `/`; a
 * mention mid-text never triggers (spec, forge_a Note Hook).
 */
export function isCommandNote(body: string | undefined): boolean {
  for (const line of (body ?? "").split(/\r?\n/)) {
    const t = line.trim();
    if (t === "" || t.startsWith(">")) continue;
    return t.startsWith("/");
  }
  return false;
}
