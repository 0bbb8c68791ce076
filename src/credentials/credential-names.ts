/** A key's provider: lower-case, as stored (`anthropic`, `openai`, `forge`). */
export const KEY_PROVIDER_RE = /^[a-z0-9][a-z0-9_.-]{0,31}$/;

/** A workflow secret's name: usable as is in an environment variable's name. */
export const SECRET_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The variable a bot finds a provider's key in: upper case, `.` and `-` as `_`. */
export const keyEnvName = (provider: string): string => `BOT_KEY_${provider.toUpperCase().replace(/[^A-Z0-9_]/g, "_")}`;

export const secretEnvName = (name: string): string => `BOT_SECRET_${name}`;
