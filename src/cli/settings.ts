import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export interface Settings {
  url?: string;
  token?: string;
}

/** `$XDG_CONFIG_HOME/remote/config.json`, else `~/.config/remote/config.json`. */
export function settingsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "remote", "config.json");
}

/** What the config file holds, or nothing when there is none. */
export async function loadSavedSettings(env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  try {
    return JSON.parse(await readFile(settingsPath(env), "utf8")) as Settings;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
}

/** The saved sign-in, with SERVICE_URL and SERVICE_TOKEN taking precedence. */
export async function loadSettings(env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const saved = await loadSavedSettings(env);
  return { url: env.SERVICE_URL || saved.url, token: env.SERVICE_TOKEN || saved.token };
}

/** Written readable by the owner only: the file holds a bearer token. */
export async function saveSettings(s: Settings, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const file = settingsPath(env);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}
