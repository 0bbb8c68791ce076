/**
 * Run variables layered later-wins into a fresh object. Built through a Map so a key such as
 * `__proto__` (it matches the generic key pattern) stays a plain own property.
 */
export function layerVars(...layers: ReadonlyArray<Readonly<Record<string, string>>>): Record<string, string> {
  const merged = new Map<string, string>();
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (typeof value === "string") merged.set(key, value);
    }
  }
  return Object.fromEntries(merged);
}
