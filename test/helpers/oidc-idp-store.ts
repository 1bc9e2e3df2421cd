/**
 * Where the test OpenID Provider keeps its sessions, interactions, grants, codes and tokens: a
 * map per provider, in memory, each entry gone at its expiry. oidc-provider's own in-memory
 * adapter would do the same, but it is shared by every provider of the process and announces
 * itself with a warning on every start; a provider of the suite needs neither.
 */

/** What oidc-provider stores of one artifact (only the fields this store looks at are named). */
interface Payload {
  uid?: string;
  userCode?: string;
  grantId?: string;
  consumed?: number;
  [field: string]: unknown;
}

interface Entry {
  payload: Payload;
  /** Epoch milliseconds after which the entry is gone; Infinity without an expiry. */
  expiresAt: number;
}

/** The adapter class for one provider's `adapter` setting (oidc-provider makes one per model). */
export function memoryAdapter() {
  const entries = new Map<string, Entry>();
  const live = (key: string): Payload | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > Date.now()) return entry.payload;
    entries.delete(key);
    return undefined;
  };
  return class TestIdpAdapter {
    private readonly model: string;
    constructor(model: string) {
      this.model = model;
    }
    private key(id: string): string {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : Infinity;
      entries.set(this.key(id), { payload, expiresAt });
    }
    async find(id: string): Promise<Payload | undefined> {
      return live(this.key(id));
    }
    async findByUid(uid: string): Promise<Payload | undefined> {
      for (const key of entries.keys())
        if (key.startsWith(`${this.model}:`) && live(key)?.uid === uid) return live(key);
      return undefined;
    }
    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      for (const key of entries.keys())
        if (key.startsWith(`${this.model}:`) && live(key)?.userCode === userCode) return live(key);
      return undefined;
    }
    async consume(id: string): Promise<void> {
      const payload = live(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      entries.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, entry] of entries)
        if (entry.payload.grantId === grantId) entries.delete(key);
    }
  };
}
