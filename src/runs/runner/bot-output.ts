/** One line of a bot's own output (not a protocol line), with its handed credentials masked. */
export interface OutputChunk {
  stream: "stdout" | "stderr";
  /** The line's text with its trailing newline; a line longer than MAX_LINE arrives in pieces. */
  text: string;
}

/** Where a runner sends an attempt's output as it is produced. */
export type OutputSink = (chunk: OutputChunk) => void;

/** A line longer than this is passed on in pieces, so one huge line is never held whole. */
export const MAX_LINE = 16 * 1024;

/** A question the bot stops to ask a person (`{"question": {"text", "choices"?}}`, then exit 75). */
export interface BotQuestion {
  text: string;
  choices?: string[];
}

const MAX_TEXT = 4000;

/** `{"summary": "…"}`: the bot's one-line account of how it went (the last one counts). */
export function parseSummaryLine(line: string): string | undefined {
  const raw = protocolObject(line, '"summary"');
  const s = raw?.summary;
  if (typeof s !== "string") return undefined;
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > 0 ? one.slice(0, 280) : undefined;
}

/** `{"question": {"text": "…", "choices"?: ["…"]}}`; anything else: undefined. */
export function parseQuestionLine(line: string): BotQuestion | undefined {
  const q = protocolObject(line, '"question"')?.question;
  if (typeof q !== "object" || q === null || Array.isArray(q)) return undefined;
  const { text, choices } = q as { text?: unknown; choices?: unknown };
  if (typeof text !== "string" || text.trim().length === 0) return undefined;
  const picked = Array.isArray(choices) ? choices.filter((c): c is string => typeof c === "string" && c.length > 0).map((c) => c.slice(0, 200)) : [];
  return { text: text.slice(0, MAX_TEXT), ...(picked.length > 0 && { choices: picked.slice(0, 20) }) };
}

function protocolObject(line: string, key: string): Record<string, unknown> | undefined {
  const text = line.trim();
  if (!text.startsWith("{") || !text.includes(key)) return undefined;
  try {
    const raw: unknown = JSON.parse(text);
    return typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Where the service keeps an attempt's output, once the runner's claim on the attempt is proven. */
export interface AttemptOutputStore {
  append(runId: string, attempt: number, chunks: OutputChunk[]): Promise<void>;
}
