/**
 * The files of a new ledger family, as `npm run new-ledger -- <family>` writes them. Every
 * verb compiles and answers "not implemented" (501) until it is filled in, so the family's
 * conformance test fails with messages saying which file to write.
 */

export interface Names {
  /** Folder and family name: `cardano`. */
  family: string;
  /** Identifier prefix: `cardano` → `cardanoFamily`. */
  camel: string;
}

const notImplemented = (n: Names, verb: string, file: string) =>
  `throw new NotSupportedError('${n.family}: ${verb} is not implemented yet (adaptors/${n.family}/${file})');`;

const verbFile = (
  n: Names,
  file: string,
  doc: string,
  signature: string,
  verb: string,
  extraImports = '',
) => `import { NotSupportedError } from '../../../src/platform/errors.js';
${extraImports}
/** ${doc} */
export ${signature} {
  ${notImplemented(n, verb, `logic/${file}.ts`)}
}
`;

export function templates(n: Names): Record<string, string> {
  const ctx = `import type { ${pascal(n)}Context } from '../context.js';\n`;
  return {
    'index.ts': `import type { AdaptorDeps, LedgerAdaptor, LedgerFamily } from '../../src/ledger/adaptor.js';
import { builtIn${pascal(n)}Codec, ${n.camel}AddressCodec } from './address-codec.js';
import type { ${pascal(n)}Context } from './context.js';
import { getBalances } from './logic/balances.js';
import { broadcast } from './logic/broadcast.js';
import { combine } from './logic/combine.js';
import { craft, release } from './logic/craft.js';
import { health } from './logic/health.js';
import { txStatus } from './logic/tx-status.js';
import { ${upper(n)}_LEDGERS } from './ledgers.js';
import { JsonRpcClient } from './network/json-rpc.js';
import { ${n.camel}OptionsSchema, type ${pascal(n)}Options } from './options.js';

/** Native asset; tokens from options follow it in assets(). */
const NATIVE = { symbol: '${n.family.toUpperCase().slice(0, 5)}', decimals: 8, native: true };
const FEE_LEVELS = ['MEDIUM', 'HIGH', 'LOW'];

function create${pascal(n)}Adaptor(ledgerId: string, options: ${pascal(n)}Options, deps: AdaptorDeps): LedgerAdaptor {
  const ctx: ${pascal(n)}Context = { ledgerId, options, rpc: new JsonRpcClient(options.rpcUrl, deps.fetch), deps };
  return {
    ...${n.camel}AddressCodec(ledgerId, ${upper(n)}_LEDGERS[ledgerId]?.network ?? 'custom'),
    nativeAsset: NATIVE,
    confirmations: options.confirmations,
    assets: () => [NATIVE],
    feeLevels: () => [...FEE_LEVELS],
    health: () => health(ctx),
    getBalances: (addresses, list) => getBalances(ctx, addresses, list),
    craft: (source, intent) => craft(ctx, source, intent),
    release: (unsigned, reference) => release(ctx, unsigned, reference),
    combine: (unsigned, sigs) => combine(ctx, unsigned, sigs),
    broadcast: (tx) => broadcast(ctx, tx),
    txStatus: (txid, unsigned) => txStatus(ctx, txid, unsigned),
  };
}

export const ${n.camel}Family: LedgerFamily<${pascal(n)}Options> = {
  family: '${n.family}',
  knownLedgers: Object.keys(${upper(n)}_LEDGERS),
  optionsSchema: ${n.camel}OptionsSchema,
  sensitiveOptions: ['rpcUrl'],
  create: create${pascal(n)}Adaptor,
  // The built-in ids answer valid and address-from-publickey without a configured back end.
  addressCodec: builtIn${pascal(n)}Codec,
  // The sandbox starts this family's development node through this hook (local-node/hook.ts), imported lazily: production never loads it.
  localNode: async () => {
    const { start${pascal(n)}LocalNode } = await import('./local-node/hook.js');
    return start${pascal(n)}LocalNode();
  },
};
`,
    'address-codec.ts': `import type { AddressCodec } from '../../src/ledger/adaptor.js';
import { ${upper(n)}_LEDGERS } from './ledgers.js';
import { ADDRESS_FORMATS, addressFromPublicKey, isValidAddress } from './logic/address.js';

/** The pure address operations of a ${n.family} ledger: no node, no options. The adaptor is built on this object. */
export function ${n.camel}AddressCodec(ledgerId: string, network: string): AddressCodec {
  return {
    ledgerId,
    family: '${n.family}',
    network,
    // The custody vault kind this ledger signs with: 'secp256k1' (ECDSA) or 'ed25519' (EDDSA).
    scheme: 'secp256k1',
    addressFormats: () => [...ADDRESS_FORMATS],
    addressFromPublicKey,
    isValidAddress,
  };
}

/** A built-in id's codec, or undefined for an id the family does not know. */
export function builtIn${pascal(n)}Codec(ledgerId: string): AddressCodec | undefined {
  const known = ${upper(n)}_LEDGERS[ledgerId];
  return known ? ${n.camel}AddressCodec(ledgerId, known.network) : undefined;
}
`,
    'ledgers.ts': `/** Ledger ids this family knows without being told its family, with the network each serves. */
export const ${upper(n)}_LEDGERS: Record<string, { network: string }> = {
  ${n.family}: { network: 'mainnet' },
  // The local development node (local-node/, started by the family's localNode hook).
  ${n.family}dev: { network: 'local' },
};
`,
    'options.ts': `import { z } from 'zod';

export const ${n.camel}OptionsSchema = z
  .object({
    /** The node's RPC endpoint. */
    rpcUrl: z.url({ protocol: /^https?$/ }),
    /** Confirmations after which a withdrawal counts as final. */
    confirmations: z.number().int().min(1).default(1),
  })
  .strict();

export type ${pascal(n)}Options = z.infer<typeof ${n.camel}OptionsSchema>;
`,
    'context.ts': `import type { AdaptorDeps } from '../../src/ledger/adaptor.js';
import type { JsonRpcClient } from './network/json-rpc.js';
import type { ${pascal(n)}Options } from './options.js';

/** What every ${n.family} logic function gets: one ledger's settings and its node client. */
export interface ${pascal(n)}Context {
  ledgerId: string;
  options: ${pascal(n)}Options;
  rpc: JsonRpcClient;
  deps: AdaptorDeps;
}
`,
    'network/json-rpc.ts': `import { UnavailableError } from '../../../src/platform/errors.js';
import type { HttpAnswer, HttpFetch } from '../../../src/platform/http-client.js';
import { mapNodeError } from './errors.js';

/**
 * The node's client over the injected fetch (the service's keep-alive client); node errors become typed errors in errors.ts, once.
 * JSON-RPC is a placeholder: name this file and its class after the node's real protocol, as the
 * built-in families do (ethereum/network/json-rpc.ts, bitcoin/network/esplora.ts and core-rpc.ts,
 * stellar/network/horizon.ts, solana/network/rpc.ts).
 */
export class JsonRpcClient {
  constructor(
    private readonly url: string,
    private readonly fetchFn: HttpFetch,
  ) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    let res: HttpAnswer;
    try {
      res = await this.fetchFn(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    } catch (e) {
      throw new UnavailableError(\`${n.family} node \${method}: \${(e as Error).message}\`, e);
    }
    const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw mapNodeError(method, body.error);
    return body.result as T;
  }
}
`,
    'network/errors.ts': `import { UpstreamError, type AppError } from '../../../src/platform/errors.js';

/** One kind of error answer of the node: its code and/or a pattern of its text, and the typed error it becomes. */
export interface NodeErrorRow {
  code?: number;
  text?: RegExp;
  error: (message: string) => AppError;
}

/**
 * The node's error answers as typed errors, matched once here from this table of the node's real
 * texts and codes: NodeRejectionError (kind, retryable) for a refused transaction, UnavailableError
 * for trouble that passes, PermanentLedgerError for a final no (see adaptors/ethereum/network/errors.ts).
 * The first row that matches decides; an answer no row matches is a non-retryable UpstreamError.
 */
export const NODE_ERRORS: readonly NodeErrorRow[] = [];

export function mapNodeError(method: string, err: { code: number; message: string }): AppError {
  const message = \`${n.family} node \${method}: \${err.message} (\${err.code})\`;
  const row = NODE_ERRORS.find((r) => (r.code === undefined || r.code === err.code) && (r.text === undefined || r.text.test(err.message)));
  return row ? row.error(message) : new UpstreamError(message, false);
}
`,
    'local-node/hook.ts': `import { NotSupportedError } from '../../../src/platform/errors.js';
import type { LocalLedgerNode } from '../../../src/ledger/adaptor.js';

/**
 * The \`${n.family}dev\` ledger on a local development node, for the sandbox: not written yet, so
 * the sandbox stops here with this message while ${n.family} is registered.
 * Start the node from its own files in local-node/ (a free port from src/dev/free-port.ts) and
 * return its options, a faucet and stop, as adaptors/solana/local-node/hook.ts does.
 */
export async function start${pascal(n)}LocalNode(): Promise<LocalLedgerNode> {
  throw new NotSupportedError('${n.family}: the local development node is not implemented yet (adaptors/${n.family}/local-node/hook.ts)');
}
`,
    'test-kit.ts': `// Support shared by this family's tests (keys that sign like the custody service, funding and
// decoding on the local node); the build leaves this file out.
import type { Redis } from 'ioredis';
import pino from 'pino';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { ${n.camel}Family } from './index.js';

/** The adaptor of \`${n.family}dev\` on the node at \`rpcUrl\`, its reservations in Redis under \`prefix\`. */
export function localAdaptor(rpcUrl: string, redis: Redis, prefix: string): LedgerAdaptor {
  return ${n.camel}Family.create('${n.family}dev', ${n.camel}Family.optionsSchema.parse({ rpcUrl }), {
    logger: pino({ level: 'silent' }),
    fetch,
    reservations: new Reservations(redis, prefix),
  });
}
`,
    'logic/address.ts': `import { NotSupportedError } from '../../../src/platform/errors.js';
import type { PublicKey } from '../../../src/ledger/adaptor.js';

/** Address formats the ledger knows; the first is the default. */
export const ADDRESS_FORMATS: readonly string[] = ['default'];

/** The address of a vault key, in one of ADDRESS_FORMATS (the first is the default). */
export function addressFromPublicKey(_key: PublicKey, _format?: string): string {
  ${notImplemented(n, 'addressFromPublicKey', 'logic/address.ts')}
}

/** Whether a text is a valid recipient on this ledger. */
export function isValidAddress(_address: string): boolean {
  return false;
}
`,
    'logic/balances.ts': verbFile(
      n,
      'balances',
      'Balances of each address in each asset, base units, in as few round trips as the node allows.',
      'async function getBalances(_ctx: ' + pascal(n) + 'Context, _addresses: string[], _assets: AssetInfo[]): Promise<Balance[]>',
      'getBalances',
      `import type { AssetInfo, Balance } from '../../../src/ledger/adaptor.js';\n${ctx}`,
    ),
    'logic/craft.ts': `import { NotSupportedError } from '../../../src/platform/errors.js';
import type { UnsignedWithdrawal, VaultSource, WithdrawalIntent } from '../../../src/ledger/adaptor.js';
${ctx}
/**
 * Builds the unsigned transaction and its signing payloads. What must not be used twice (a
 * nonce, a sequence number, coins) is held under \`intent.reference\` with \`reserveAndBuild\`
 * (src/ledger/reserve-and-build.ts), which gives it back when the build fails. One transaction
 * signed once is \`singlePayloadWithdrawal\` (src/ledger/single-payload.ts), its state
 * \`${n.camel}State.encode(…)\` (./state.ts).
 */
export async function craft(_ctx: ${pascal(n)}Context, _source: VaultSource, _intent: WithdrawalIntent): Promise<UnsignedWithdrawal> {
  ${notImplemented(n, 'craft', 'logic/craft.ts')}
}

/** Frees what craft reserved: \`${n.camel}State.decode(unsigned.state)\` says what; more than one thing through \`releaseAll\` (src/ledger/reserve-and-build.ts), so one failing release does not keep the others held. */
export async function release(_ctx: ${pascal(n)}Context, _unsigned: UnsignedWithdrawal, _reference: string): Promise<void> {
  ${notImplemented(n, 'release', 'logic/craft.ts')}
}
`,
    'logic/state.ts': `import { z } from 'zod';
import { defineStateCodec, type StateOf } from '../../../src/ledger/state-codec.js';

/**
 * What craft stores in the unsigned withdrawal for combine, release, broadcast and txStatus:
 * JSON only (bigints as decimal strings). Read back through the schema, so a stored state that
 * does not match fails for good with ERR_BAD_STATE instead of building another transaction.
 */
export const ${n.camel}State = defineStateCodec(
  '${n.family}',
  z
    .object({
      // The fields combine needs to rebuild and check the crafted transaction.
    })
    .strict(),
);

export type ${pascal(n)}State = StateOf<typeof ${n.camel}State>;
`,
    'logic/combine.ts': verbFile(
      n,
      'combine',
      'Puts verified signatures into the crafted transaction and checks the result.',
      `function combine(_ctx: ${pascal(n)}Context, _unsigned: UnsignedWithdrawal, _sigs: VerifiedSignature[]): SignedTx[]`,
      'combine',
      `import type { SignedTx, UnsignedWithdrawal, VerifiedSignature } from '../../../src/ledger/adaptor.js';\n${ctx}`,
    ),
    'logic/broadcast.ts': verbFile(
      n,
      'broadcast',
      'Sends a signed transaction; "already known" is success.',
      `async function broadcast(_ctx: ${pascal(n)}Context, _tx: SignedTx): Promise<BroadcastResult>`,
      'broadcast',
      `import type { BroadcastResult, SignedTx } from '../../../src/ledger/adaptor.js';\n${ctx}`,
    ),
    'logic/tx-status.ts': verbFile(
      n,
      'tx-status',
      'Where a broadcast transaction stands.',
      `async function txStatus(_ctx: ${pascal(n)}Context, _txid: string, _unsigned: UnsignedWithdrawal): Promise<TxStatus>`,
      'txStatus',
      `import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';\n${ctx}`,
    ),
    'logic/health.ts': `import type { LedgerHealth } from '../../../src/ledger/adaptor.js';
${ctx}
/** Node reachable, its height, and whether it serves the configured network. Never throws. */
export async function health(_ctx: ${pascal(n)}Context): Promise<LedgerHealth> {
  return { healthy: false, errorMessage: '${n.family}: health is not implemented yet (adaptors/${n.family}/logic/health.ts)' };
}
`,
    'conformance.test.ts': `// Where this family's tests go: a test of one file beside it, named after it (logic/craft.ts →
// logic/craft.test.ts); tests through several verbs (withdrawal.test.ts, the signing loop) here at
// the root, beside this one. Shared test support goes in test-kit.ts (docs/adding-a-ledger.md).
import { describeConformance } from '../../test/conformance/conformance.js';
import { secp256k1Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import { localAdaptor } from './test-kit.js';

const todo = (what: string) => (): never => {
  throw new Error(\`${n.family} conformance: \${what} is not implemented yet (adaptors/${n.family}/conformance.test.ts)\`);
};

describeConformance(
  '${n.family}',
  async () => {
    // Start the family's local node here (local-node/) and point rpcUrl at it (see adaptors/solana/conformance.test.ts).
    const { redis, prefix } = testRedis();
    const adaptor = localAdaptor('http://127.0.0.1:9', redis, prefix);
    return {
      adaptor,
      signer: secp256k1Signer(),
      foreignAddresses: ['0x8240Fd14931292B85C850514c8a4eBd35E56EDA4', 'bc1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlw6qz2yj'],
      fund: todo('fund (send funds on the local node)'),
      recipient: todo('recipient (a fresh address)'),
      decode: todo('decode (read a signed transaction back)'),
      settle: async () => undefined,
      stop: async () => {
        redis.disconnect();
      },
    };
  },
  { tokens: false },
);
`,
  };
}

/** Constant prefix: \`cardano\` → \`CARDANO_LEDGERS\`. */
export function upper(n: Names): string {
  return n.camel.toUpperCase();
}

export function pascal(n: Names): string {
  return n.camel.charAt(0).toUpperCase() + n.camel.slice(1);
}
