/** Markup that is already safe: built by {@link html}, or a constant of ours. */
export class Safe {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export const escapeHtml = (v: unknown): string => String(v ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Part = Safe | string | number | boolean | null | undefined | readonly Part[];

function render(v: Part): string {
  if (v instanceof Safe) return v.text;
  if (Array.isArray(v)) return v.map(render).join("");
  if (v === null || v === undefined || v === false) return "";
  return escapeHtml(v);
}

/** A template whose every interpolated value is escaped unless it is {@link Safe} (nested `html` included). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Safe {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Safe(out);
}
