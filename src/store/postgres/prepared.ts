import type pg from "pg";

/** Distinct statement texts given a name; past this, texts run unnamed (parsed every time). */
const MAX_NAMED = 500;

/**
 * Makes a pooled client run parametrised statements as named prepared statements, so
 * PostgreSQL parses and plans each distinct text once per connection instead of on every
 * query. The names come from one shared, bounded map of texts; node-pg prepares a name on a
 * connection the first time that connection sees it.
 */
export function preparedStatements(): (client: pg.PoolClient) => void {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED) {
      name = `s${names.size}`;
      names.set(text, name);
    }
    return name;
  };
  return (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
      if (typeof config === "string" && Array.isArray(values) && values.length > 0) {
        const name = nameOf(config);
        if (name) return query({ name, text: config, values }, callback);
      }
      return query(config, values, callback);
    };
  };
}
