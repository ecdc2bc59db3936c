/** Shared pieces of the webhook tests (not a test file itself). */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { newOperation, type Operation } from '../../src/withdrawals/model/operation.js';

/** A stored-shape operation without a ledger behind it: the outbox and the lists only read its fields. */
export function fakeOperation(fields: { vaultId?: string; ledgerId?: string; createdAt?: string; amount?: string } = {}): Operation {
  return newOperation(
    {
      id: randomUUID(),
      vaultId: fields.vaultId ?? 'vault-a',
      ledgerId: fields.ledgerId ?? 'ethdev',
      request: {
        recipientAddress: '0x00000000000000000000000000000000000000B0',
        asset: 'ETH',
        amount: fields.amount ?? '1',
        description: 'test',
        fee: 'MEDIUM',
      },
      recipientAddress: '0x00000000000000000000000000000000000000B0',
      unsigned: {
        txs: [{ serialized: '02abcd' }],
        payloads: [
          { digest: randomBytes(32).toString('hex'), keyId: 'k', publicKey: '02'.padEnd(66, '1'), hashAlgorithm: 'NONE' as never, txIndex: 0, inputIndex: 0 },
        ],
        fee: '21000',
        state: {},
      },
    },
    fields.createdAt,
  );
}

export interface Received {
  at: number;
  headers: IncomingMessage['headers'];
  raw: string;
  body: any;
  /** What the receiver answered: a status, or 'hang' (no answer). */
  answer: number | 'hang';
}

/**
 * A real HTTP webhook receiver. `plan` decides each request's answer in arrival order
 * (a status or 'hang'); past its end it answers `then`.
 */
export async function startReceiver(
  plan: (number | 'hang')[] = [],
  then: number | 'hang' = 200,
): Promise<{ url: string; received: Received[]; setThen(a: number | 'hang'): void; close(): Promise<void> }> {
  const received: Received[] = [];
  const state = { then };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const answer = plan[received.length] ?? state.then;
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      received.push({ at: Date.now(), headers: req.headers, raw, body, answer });
      if (answer !== 'hang') res.writeHead(answer).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    setThen: (a) => {
      state.then = a;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
