import { createHash } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';

/**
 * What a script takes, by name, in order: `keys` (KEYS[1]…) and `args` (ARGV[1]…). A last
 * name that starts with `...` stands for any number more (`'...digest-ops'`), as a rest
 * parameter does. The names are the script's documentation and fix its call's shape: a caller
 * passes exactly as many keys and arguments as are named, or at least the named ones before
 * the rest. The key count Redis needs is the number of keys passed.
 */
export interface LuaScriptSpec<K extends readonly string[] = readonly string[], A extends readonly string[] = readonly string[]> {
  keys: K;
  args: A;
  /** What the script answers. */
  returns: string;
}

/** A value per name: a tuple, open at the end when the last name is a rest (`...name`). */
export type Slots<Names extends readonly string[], V> = Names extends readonly [...infer Fixed extends readonly string[], `...${string}`]
  ? [...{ [I in keyof Fixed]: V }, ...V[]]
  : { -readonly [I in keyof Names]: V };

export type ScriptKeys<K extends readonly string[]> = Slots<K, string>;
export type ScriptArgs<A extends readonly string[]> = Slots<A, string | number>;

const isRest = (names: readonly string[]): boolean => names.at(-1)?.startsWith('...') ?? false;

function checkCount(what: 'keys' | 'arguments', names: readonly string[], got: number, script: LuaScriptSpec): void {
  const rest = isRest(names);
  const fixed = rest ? names.length - 1 : names.length;
  if (rest ? got >= fixed : got === fixed) return;
  throw new TypeError(
    `Lua script taking ${script.keys.join(', ')} | ${script.args.join(', ')}: ${got} ${what} given, ${rest ? 'at least ' : ''}${fixed} expected`,
  );
}

/**
 * A Lua script run by its SHA-1 (EVALSHA), sent whole (EVAL) only when the server does not
 * know it yet (NOSCRIPT: a new or restarted server, another cluster node, SCRIPT FLUSH). The
 * service's scripts run on every withdrawal step; sending their text each time was a good
 * part of the bytes written to Redis per withdrawal.
 *
 * Made by `luaScript`, which declares its keys and arguments beside its source.
 */
export class LuaScript<K extends readonly string[] = readonly string[], A extends readonly string[] = readonly string[]> {
  readonly sha: string;

  constructor(
    readonly spec: LuaScriptSpec<K, A>,
    readonly lua: string,
  ) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  private command(keys: readonly string[], args: readonly (string | number)[]): [number, ...(string | number)[]] {
    checkCount('keys', this.spec.keys, keys.length, this.spec);
    checkCount('arguments', this.spec.args, args.length, this.spec);
    return [keys.length, ...keys, ...args];
  }

  async run(redis: Pick<Redis, 'evalsha' | 'eval'>, keys: Readonly<ScriptKeys<K>>, args: Readonly<ScriptArgs<A>>): Promise<unknown> {
    const command = this.command(keys, args);
    try {
      return await redis.evalsha(this.sha, ...command);
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
      return redis.eval(this.lua, ...command);
    }
  }

  /** Queues a run in a pipeline; a NOSCRIPT reply there is the caller's to handle (run it alone). */
  addTo(pipeline: ChainableCommander, keys: Readonly<ScriptKeys<K>>, args: Readonly<ScriptArgs<A>>): void {
    pipeline.evalsha(this.sha, ...this.command(keys, args));
  }
}

/**
 * Declares a script: its keys, arguments and answer (`spec`), then its source, which is sent
 * to Redis exactly as given. Keys must share one hash tag (`{…}`) to run on Redis Cluster.
 */
export function luaScript<const K extends readonly string[], const A extends readonly string[]>(spec: LuaScriptSpec<K, A>, lua: string): LuaScript<K, A> {
  return new LuaScript(spec, lua);
}

/** Lua that sets `now` to Redis' own clock in ms: one clock for every process, whatever theirs say. */
export const NOW_MS_LUA = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;
