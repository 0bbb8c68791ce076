/** Hides a bot's credential values in text the runner keeps of it (stderr, a spawn error). */
export interface SecretMask {
  mask(text: string): string;
  /** Characters a kept tail needs beyond its size, so a value cut at the tail's start can be dropped whole. */
  margin: number;
  /** The last `size` characters of a kept buffer, masked; `cut` says the buffer's start was dropped. */
  tail(raw: string, cut: boolean, size: number): string;
}

export const REDACTED = "[redacted]";

export function secretMask(values: string[]): SecretMask {
  // Longest first, so a value inside another is not left half shown.
  const secrets = [...new Set(values.filter((v) => v.length > 0))].sort((a, b) => b.length - a.length);
  const margin = secrets.length > 0 ? secrets[0]!.length : 0;
  const mask = (text: string) => secrets.reduce((out, v) => out.split(v).join(REDACTED), text);
  // A cut buffer may begin with the end of a value: its first `margin` characters go.
  const tail = (raw: string, cut: boolean, size: number) => (cut ? mask(raw).slice(margin) : mask(raw)).slice(-size);
  return { mask, margin, tail };
}
