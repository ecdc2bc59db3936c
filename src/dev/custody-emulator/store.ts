import type { Redis } from 'ioredis';
import { emulatorKeys } from '../../platform/redis-keys.js';

/** Record kinds, each one Redis hash `{prefix}{kind}` of id → JSON. */
export type Kind = 'user' | 'apikey' | 'account' | 'participant' | 'vault' | 'deleted-vault' | 'operation' | 'meta';

export interface TokenRecord {
  kind: 'access' | 'refresh' | 'apikey';
  /** User name, or the API key's client id. */
  owner: string;
  role: string;
  expiresAt: number;
}

/**
 * The emulator's state in Redis under its own prefix, so it survives a restart. One
 * emulator process owns a prefix: read-modify-write sequences run one at a time through
 * `exclusive`, which is what keeps approvals racing their timers consistent.
 */
export interface EmulatorStore {
  get<T>(kind: Kind, id: string): Promise<T | undefined>;
  put(kind: Kind, id: string, value: unknown): Promise<void>;
  del(kind: Kind, id: string): Promise<void>;
  list<T>(kind: Kind): Promise<T[]>;
  putToken(hash: string, token: TokenRecord): Promise<void>;
  getToken(hash: string): Promise<TokenRecord | undefined>;
  /** Revokes every token of an owner (`DELETE {mng}/auth/token/{owner}`). */
  revokeOwner(owner: string, kinds?: TokenRecord['kind'][]): Promise<number>;
  deleteToken(hash: string): Promise<void>;
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
}

/**
 * `now` is the clock token expiry is checked against (the emulator's, which tests may pin or
 * move): each token's Redis TTL is measured on it, so Redis never drops a token earlier
 * than its `expiresAt` says.
 */
export function createStore(redis: Redis, prefix: string, now: () => number = Date.now): EmulatorStore {
  const keys = emulatorKeys(prefix);
  const hash = (kind: Kind) => keys.records(kind);
  const tokenKey = (h: string) => keys.token(h);
  const ownerKey = (owner: string) => keys.ownerTokens(owner);
  let queue: Promise<unknown> = Promise.resolve();

  return {
    async get<T>(kind: Kind, id: string) {
      const text = await redis.hget(hash(kind), id);
      return text === null ? undefined : (JSON.parse(text) as T);
    },
    async put(kind, id, value) {
      await redis.hset(hash(kind), id, JSON.stringify(value));
    },
    async del(kind, id) {
      await redis.hdel(hash(kind), id);
    },
    async list<T>(kind: Kind) {
      return (await redis.hvals(hash(kind))).map((t) => JSON.parse(t) as T);
    },
    async putToken(h, token) {
      const ttl = Math.max(1, token.expiresAt - now());
      await redis.multi().set(tokenKey(h), JSON.stringify(token), 'PX', ttl).sadd(ownerKey(token.owner), h).exec();
    },
    async getToken(h) {
      const text = await redis.get(tokenKey(h));
      return text === null ? undefined : (JSON.parse(text) as TokenRecord);
    },
    async revokeOwner(owner, kinds) {
      let revoked = 0;
      for (const h of await redis.smembers(ownerKey(owner))) {
        const t = await this.getToken(h);
        if (!t) await redis.srem(ownerKey(owner), h);
        else if (!kinds || kinds.includes(t.kind)) {
          await redis.multi().del(tokenKey(h)).srem(ownerKey(owner), h).exec();
          revoked++;
        }
      }
      return revoked;
    },
    async deleteToken(h) {
      await redis.del(tokenKey(h));
    },
    exclusive<T>(work: () => Promise<T>): Promise<T> {
      const run = queue.then(work, work);
      queue = run.catch(() => undefined);
      return run;
    },
    async ping() {
      try {
        return (await redis.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
  };
}

/** The in-memory store, whose records can also be read synchronously (tests, the bench). */
export interface MemoryStore extends EmulatorStore {
  /** The record as stored now, without waiting: writes take effect when `put` is called. */
  peek<T>(kind: Kind, id: string): T | undefined;
  peekAll<T>(kind: Kind): T[];
}

/**
 * The same store in this process's memory: nothing survives the process, and there is no
 * Redis to start. Records are kept as JSON text, as in Redis, so no caller shares an object
 * with the store.
 */
export function createMemoryStore(now: () => number = Date.now): MemoryStore {
  const records = new Map<Kind, Map<string, string>>();
  const tokens = new Map<string, string>();
  const owners = new Map<string, Set<string>>();
  const table = (kind: Kind) => records.get(kind) ?? records.set(kind, new Map()).get(kind)!;
  let queue: Promise<unknown> = Promise.resolve();
  const readToken = (h: string): TokenRecord | undefined => {
    const text = tokens.get(h);
    const token = text === undefined ? undefined : (JSON.parse(text) as TokenRecord);
    if (token && token.expiresAt <= now()) {
      tokens.delete(h);
      return undefined;
    }
    return token;
  };
  const peek = <T>(kind: Kind, id: string): T | undefined => {
    const text = table(kind).get(id);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  };
  const peekAll = <T>(kind: Kind): T[] => [...table(kind).values()].map((t) => JSON.parse(t) as T);

  return {
    peek,
    peekAll,
    get: async (kind, id) => peek(kind, id),
    async put(kind, id, value) {
      table(kind).set(id, JSON.stringify(value));
    },
    async del(kind, id) {
      table(kind).delete(id);
    },
    list: async (kind) => peekAll(kind),
    async putToken(h, token) {
      tokens.set(h, JSON.stringify(token));
      (owners.get(token.owner) ?? owners.set(token.owner, new Set()).get(token.owner)!).add(h);
    },
    getToken: async (h) => readToken(h),
    async revokeOwner(owner, kinds) {
      let revoked = 0;
      const mine = owners.get(owner) ?? new Set<string>();
      for (const h of [...mine]) {
        const t = readToken(h);
        if (!t) mine.delete(h);
        else if (!kinds || kinds.includes(t.kind)) {
          tokens.delete(h);
          mine.delete(h);
          revoked++;
        }
      }
      return revoked;
    },
    async deleteToken(h) {
      tokens.delete(h);
    },
    exclusive<T>(work: () => Promise<T>): Promise<T> {
      const run = queue.then(work, work);
      queue = run.catch(() => undefined);
      return run;
    },
    ping: async () => true,
  };
}
