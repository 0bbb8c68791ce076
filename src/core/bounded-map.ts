/**
 * A Map that holds at most `max` entries: setting a new key when full forgets the oldest
 * inserted first. Setting a key already held keeps its place. For per-process hints and caches.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.max && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Drops every entry `drop` says so of. */
  deleteWhere(drop: (value: V, key: K) => boolean): void {
    for (const [key, value] of this.entries) if (drop(value, key)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
