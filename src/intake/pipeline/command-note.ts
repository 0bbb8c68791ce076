/** A slash command: its name without the `/`, lower-cased, and the rest of its line. */
export interface ParsedCommand {
  name: string;
  args: string;
}

/** The first line that is neither blank nor a quote: where a command must start. */
function firstSpokenLine(body: string | undefined): string | undefined {
  for (const line of (body ?? "").split(/\r?\n/)) {
    const t = line.trim();
    if (t === "" || t.startsWith(">")) continue;
    return t;
  }
  return undefined;
}

/**
 * A note is a command only when its first non-blank, non-quote line starts with `/`; a
 * mention mid-text never triggers (spec, forge_a Note Hook).
 */
export function isCommandNote(body: string | undefined): boolean {
  return firstSpokenLine(body)?.startsWith("/") === true;
}

/** The command of a command note (`/re-review why this lock?` → re-review, "why this lock?"), else undefined. */
export function parseCommand(body: string | undefined): ParsedCommand | undefined {
  const line = firstSpokenLine(body);
  const m = line === undefined ? null : /^\/([^\s/]+)\s*(.*)$/.exec(line);
  if (!m?.[1]) return undefined;
  return { name: m[1].toLowerCase(), args: (m[2] ?? "").trim() };
}
