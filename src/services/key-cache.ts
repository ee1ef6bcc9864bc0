import type { AuthedKey } from '../http/context.js';

/**
 * Recently authenticated keys by hash, so a request need not read the database. Any change
 * to a key (revoke, rename, publish) evicts it in every process: locally at once, elsewhere
 * through the database's key-change notifications. While notifications may have been lost
 * the cache is disabled. A key read from the database is stored only if no change arrived
 * while it was read (the read may predate a revoke whose notice came first).
 */
export class KeyCache {
  private readonly entries = new Map<string, { key: AuthedKey; expiresAt: number }>();
  private enabled = false;
  /** Changes seen so far (evictions, enable/disable): `mark()` before a read, `set(…, mark)` after. */
  private changes = 0;

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {}

  /** Turned on once the change feed is listening; off again when it drops. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.changes += 1;
    if (!enabled) this.entries.clear();
  }

  /** Taken before reading a key from the database; `set` refuses the read if a change came since. */
  mark(): number {
    return this.changes;
  }

  get(keyHash: string, nowMs: number): AuthedKey | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= nowMs) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.key;
  }

  set(keyHash: string, key: AuthedKey, nowMs: number, mark: number): void {
    if (!this.enabled || mark !== this.changes) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(keyHash, { key, expiresAt: nowMs + this.ttlMs });
  }

  evictKey(keyId: number): void {
    this.changes += 1;
    for (const [hash, entry] of this.entries) if (entry.key.keyId === keyId) this.entries.delete(hash);
  }
}
