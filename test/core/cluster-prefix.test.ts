import { describe, expect, it } from 'vitest';
import { clusterPrefixProblem } from '../../src/platform/redis.js';

const CLUSTER = 'redis+cluster://127.0.0.1:7000,127.0.0.1:7001/';

/**
 * Redis Cluster hashes a key by the text between its first `{` and the first `}` after it,
 * or by the whole key when there is no such pair or the text between is empty. A prefix holds
 * on a cluster only when it fixes that text for every key under it.
 */
describe('REDIS_PREFIX on a Redis Cluster', () => {
  it('accepts a prefix whose first hash tag is not empty', () => {
    for (const prefix of ['{byow}', 'a{byow}b', '}{byow}', '{{byow}}', '{b}{}']) expect(clusterPrefixProblem(CLUSTER, prefix), prefix).toBeUndefined();
  });

  it('refuses a prefix whose first hash tag is empty or missing, naming the valid form', () => {
    expect(clusterPrefixProblem(CLUSTER, 'byow')).toMatch(/hash tag such as \{byow\}/);
    expect(clusterPrefixProblem(CLUSTER, '{}{byow}')).toMatch(/hash tag such as \{byow\}.*first \{ and the next \}/);
    for (const prefix of ['{}', 'byow}', 'byow{', '}byow{']) expect(clusterPrefixProblem(CLUSTER, prefix), prefix).toBeDefined();
  });

  it('leaves any prefix alone on a single Redis', () => {
    expect(clusterPrefixProblem('redis://127.0.0.1:6379', '{}{byow}')).toBeUndefined();
  });
});
