import { createHash } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';

/**
 * A Lua script run by its SHA-1 (EVALSHA), sent whole (EVAL) only when the server does not
 * know it yet (NOSCRIPT: a new or restarted server, another cluster node, SCRIPT FLUSH). The
 * service's scripts run on every withdrawal step; sending their text each time was a good
 * part of the bytes written to Redis per withdrawal.
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(redis: Pick<Redis, 'evalsha' | 'eval'>, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, numKeys, ...keysAndArgs);
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
      return redis.eval(this.lua, numKeys, ...keysAndArgs);
    }
  }

  /** Queues a run in a pipeline; a NOSCRIPT reply there is the caller's to handle (run it alone). */
  addTo(pipeline: ChainableCommander, numKeys: number, ...keysAndArgs: (string | number)[]): void {
    pipeline.evalsha(this.sha, numKeys, ...keysAndArgs);
  }
}

/** Lua that sets `now` to Redis' own clock in ms: one clock for every process, whatever theirs say. */
export const NOW_MS_LUA = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;
