import { describe, expect, it } from 'vitest';
import { UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import { startAnvil } from '../local-node/local-anvil.js';
import { ETH_BLOCK_NOT_SERVED, ETH_RATE_LIMIT } from './errors.js';
import { JsonRpcClient, JsonRpcError } from './json-rpc.js';

/** A client whose node answers HTTP 200 with `error` for every call, each entry of a batch on its own. */
function answeringWith(error: unknown): JsonRpcClient {
  const node = (async (_input: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as { id: number } | { id: number }[];
    const answers = [body].flat().map((c) => ({ jsonrpc: '2.0', id: c.id, error }));
    return new Response(JSON.stringify(Array.isArray(body) ? answers : answers[0]), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return new JsonRpcClient('http://node.test', node);
}

const send = { method: 'eth_sendRawTransaction', params: ['0x02'] };
const lookup = { method: 'eth_getTransactionByHash', params: [`0x${'ab'.repeat(32)}`] };

describe('JSON-RPC error entries as typed errors', () => {
  for (const ex of ETH_RATE_LIMIT.examples) {
    it(`a rate limit (${ex.client}) is the node unavailable, asked again, alone or in a batch`, async () => {
      const answers = await answeringWith({ code: ex.code, message: ex.message }).settle([send, lookup]);
      for (const a of answers) {
        expect(a.ok).toBe(false);
        const error = (a as { error: Error }).error;
        expect(error).toBeInstanceOf(UnavailableError);
        expect(error).toMatchObject({ retryable: true, errCode: 'ERR_NODE_UNAVAILABLE' });
      }
      await expect(answeringWith({ code: ex.code, message: ex.message }).call(send.method, send.params)).rejects.toMatchObject({ retryable: true });
    });
  }

  for (const error of [{ code: -32000 }, { code: -32000, message: '' }, { code: -32000, message: null }]) {
    it(`an entry without words (${JSON.stringify(error)}) says nothing of the call: asked again`, async () => {
      const [answer] = await answeringWith(error).settle([send]);
      const e = (answer as { error: Error }).error;
      expect(e).toBeInstanceOf(UpstreamError);
      expect(e).not.toBeInstanceOf(JsonRpcError);
      expect(e).toMatchObject({ retryable: true });
    });
  }

  it("a read's error is asked again; a send's is the node's verdict, read by the refusal table", async () => {
    const client = answeringWith({ code: -32000, message: 'transaction indexing is in progress' });
    const [read, sent] = await client.settle([lookup, send]);
    expect((read as { error: Error }).error).toMatchObject({ retryable: true, rpcMessage: 'transaction indexing is in progress' });
    expect((sent as { error: Error }).error).toBeInstanceOf(JsonRpcError);
    expect((sent as { error: Error }).error).toMatchObject({ retryable: false });
  });

  for (const ex of ETH_BLOCK_NOT_SERVED.examples) {
    it(`a read at a block the node does not serve (${ex.client}) is the node unavailable, a send's same words are not`, async () => {
      const client = answeringWith({ code: ex.code, message: ex.message });
      const [read, sent] = await client.settle([{ method: 'eth_getBalance', params: [`0x${'be'.repeat(20)}`, '0xa'] }, send]);
      expect((read as { error: Error }).error).toBeInstanceOf(UnavailableError);
      expect((read as { error: Error }).error).toMatchObject({ retryable: true, errCode: 'ERR_NODE_UNAVAILABLE', status: 503 });
      expect((sent as { error: Error }).error).toBeInstanceOf(JsonRpcError);
    });
  }

  it('a real anvil: a balance read at a block not reached yet, and at one its pruned history dropped, is asked again', async () => {
    const anvil = await startAnvil();
    try {
      const client = new JsonRpcClient(anvil.url, fetch);
      const address = `0x${'be'.repeat(20)}`;
      const ahead = client.call('eth_getBalance', [address, '0x3e8']);
      await expect(ahead).rejects.toBeInstanceOf(UnavailableError);
      await expect(ahead).rejects.toMatchObject({
        retryable: true,
        errCode: 'ERR_NODE_UNAVAILABLE',
        details: expect.stringMatching(/BlockOutOfRangeError: block height is 0 but requested was 1000/),
      });
      await client.call('anvil_mine', ['0x20']);
      const pruned = client.call('eth_getBalance', [address, '0x1']);
      await expect(pruned).rejects.toMatchObject({
        retryable: true,
        errCode: 'ERR_NODE_UNAVAILABLE',
        details: expect.stringMatching(/block height is 32 but requested was 1\b/),
      });
    } finally {
      await anvil.stop();
    }
  });
});
