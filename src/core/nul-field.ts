/**
 * The first field carrying a NUL character (`vars.KEY` for a variable), or undefined. A run's
 * text reaches the bot's environment, and execve takes C strings, so no run field may hold a
 * NUL; PostgreSQL's text refuses it too. The runs API, the generic intake and webhooks' var maps refuse by it.
 */
export function nulField(fields: Readonly<Record<string, string | undefined>>, vars: Readonly<Record<string, string>> = {}): string | undefined {
  for (const [name, value] of Object.entries(fields)) if (value?.includes("\u0000")) return name;
  for (const [key, value] of Object.entries(vars)) if (value.includes("\u0000")) return `vars.${key}`;
  return undefined;
}

export const nulMessage = (field: string) => `${field} contains a NUL character`;
