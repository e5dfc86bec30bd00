/**
 * A Map of at most `max` entries for hot-path caches (verified tokens, rate-limit trackers, user
 * checks): when full, the next new key starts it over. Cheaper than LRU bookkeeping, and a cache
 * that is refilled on a miss loses nothing but one look-up per key.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}
