import { NodeRejectionError, type RejectionKind } from '../../../src/platform/errors.js';

/**
 * Every Ethereum client words a refused transaction its own way; this table is the one place
 * those words are read. A row lists the texts real clients send (`examples`, quoted from the
 * clients' sources or from a live node, with the client named) and the pattern that matches
 * them; rows are tried in order, so a more specific text comes before one it contains
 * ("replacement transaction underpriced" before "transaction underpriced").
 *
 * Sources: geth core/txpool/errors.go, core/error.go, core/types/transaction_signing.go;
 * Erigon txpoolcfg.DiscardReason.String(); Nethermind TxPoolErrorMessages (geth wording) and
 * its older AcceptTxResult codes (`OldNonce, …`); Besu RpcErrorType; reth's pool and RPC
 * errors; anvil 1.x and Hardhat 2.29 as answered by a live node.
 */
export interface NodeMessageRow {
  kind: RejectionKind;
  /** Whether the same signed bytes can be accepted later. */
  retryable: boolean;
  /**
   * Whether the answer proves the transaction's own bytes can never be valid on this chain, on any
   * node at any time (a bad signature, another chain's id, gas below the intrinsic minimum). Only
   * such a refusal ends a signed withdrawal FAILED; every other one leaves it open, since the same
   * bytes may still land (sent again, or by anyone who holds them). Each row says why.
   */
  invalidForever: boolean;
  pattern: RegExp;
  examples: NodeMessageExample[];
}

export interface NodeMessageExample {
  client: string;
  message: string;
  code?: number;
}

export const ETH_NODE_MESSAGES: readonly NodeMessageRow[] = [
  {
    // Not a refusal: the node holds these very bytes.
    kind: 'already_known',
    retryable: false,
    invalidForever: false,
    // `\b`: "unknown transaction type" is a refusal, not this.
    pattern: /already known|\bknown transaction|already imported|alreadyknown|existing tx with same hash/i,
    examples: [
      { client: 'geth', message: 'already known' },
      { client: 'erigon', message: 'already known' },
      { client: 'erigon', message: 'INTERNAL_ERROR: existing tx with same hash' },
      { client: 'nethermind', message: 'already known' },
      { client: 'nethermind (older)', message: 'AlreadyKnown' },
      { client: 'besu', message: 'Known transaction', code: -32000 },
      { client: 'reth', message: 'already known' },
      { client: 'anvil', message: 'transaction already imported', code: -32003 },
      { client: 'hardhat', message: 'Known transaction: 0x2f1c4b0e6d4c4e7e9a3b2a1f0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0', code: -32000 },
    ],
  },
  {
    // Not forever: another transaction of the same nonce sits in this node's pool; it may be
    // mined, dropped or unknown to other nodes, and these bytes stay valid if it goes.
    kind: 'replacement_underpriced',
    retryable: false,
    invalidForever: false,
    pattern: /replacement transaction underpriced|replacementnotallowed|could not replace existing tx/i,
    examples: [
      { client: 'geth', message: 'replacement transaction underpriced' },
      { client: 'erigon', message: 'replacement transaction underpriced' },
      { client: 'erigon', message: 'could not replace existing tx' },
      { client: 'nethermind', message: 'replacement transaction underpriced' },
      { client: 'nethermind (older)', message: 'ReplacementNotAllowed' },
      { client: 'besu', message: 'Replacement transaction underpriced', code: -32000 },
      { client: 'reth', message: 'replacement transaction underpriced' },
      { client: 'anvil', message: 'replacement transaction underpriced', code: -32003 },
      {
        client: 'hardhat',
        message:
          'Replacement transaction underpriced. A gasPrice/maxFeePerGas of at least 2000000000 is necessary to replace the existing transaction with nonce 0.',
      },
    ],
  },
  {
    // Not forever: the node's state has a later nonce, i.e. a block used this one; that block may
    // leave the chain. Only the block holding the other transaction at depth proves it (tx-status).
    kind: 'nonce_too_low',
    retryable: false,
    invalidForever: false,
    pattern: /nonce too low|oldnonce/i,
    examples: [
      { client: 'geth', message: 'nonce too low: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, tx: 0 state: 1' },
      { client: 'erigon', message: 'nonce too low' },
      { client: 'nethermind', message: 'nonce too low' },
      { client: 'nethermind (older)', message: 'OldNonce, Current nonce: 5, nonce of rejected tx: 3' },
      { client: 'besu', message: 'Nonce too low', code: -32001 },
      { client: 'reth', message: 'nonce too low: next nonce 4, tx nonce 3' },
      { client: 'anvil', message: 'nonce too low', code: -32003 },
      { client: 'hardhat', message: "Nonce too low. Expected nonce to be 1 but got 0. Note that transactions can't be queued when automining.", code: -32000 },
    ],
  },
  {
    // A node that refuses gaps (Hardhat automining, Besu and rollup sequencers) says this while an
    // earlier nonce is not in yet: the predecessor will fill the gap, so it is worth waiting.
    kind: 'nonce_too_high',
    retryable: true,
    invalidForever: false,
    pattern: /nonce too high|noncegap|nonce too far in future|nonce is too distant/i,
    examples: [
      { client: 'geth', message: 'nonce too high' },
      { client: 'nethermind', message: 'nonce too high' },
      { client: 'nethermind', message: 'nonce too far in future' },
      { client: 'nethermind (older)', message: 'NonceGap, Future nonce. Expected nonce: 4' },
      { client: 'besu', message: 'Nonce too high', code: -32006 },
      { client: 'besu', message: 'Transaction nonce is too distant from current sender nonce', code: -32000 },
      { client: 'hardhat', message: "Nonce too high. Expected nonce to be 4 but got 5. Note that transactions can't be queued when automining.", code: -32000 },
    ],
  },
  {
    // The signed fee cannot change, but the base fee moves every block and may fall under it.
    kind: 'fee_below_base_fee',
    retryable: true,
    invalidForever: false,
    pattern: /less than (?:the )?block base fee|fee cap less than block base fee|is too low for the next block|below current base fee/i,
    examples: [
      { client: 'geth', message: 'max fee per gas less than block base fee: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, maxFeePerGas: 1, baseFee: 7' },
      { client: 'geth (older)', message: 'fee cap less than block base fee' },
      { client: 'reth', message: 'max fee per gas less than block base fee' },
      { client: 'anvil', message: 'max fee per gas less than block base fee', code: -32003 },
      { client: 'besu', message: 'Gas price below current base fee', code: -32009 },
      { client: 'hardhat', message: 'Transaction maxFeePerGas (1) is too low for the next block, which has a baseFeePerGas of 765701563', code: -32000 },
    ],
  },
  {
    // Under the pool's floor or priced out of a full pool: the floor and the competition move.
    kind: 'fee_too_low',
    retryable: true,
    invalidForever: false,
    pattern: /transaction underpriced|^underpriced$|fee too low|feetoolow|below configured minimum gas price/i,
    examples: [
      { client: 'geth', message: 'transaction underpriced: tip needed 1, tip permitted 0' },
      { client: 'erigon', message: 'underpriced' },
      { client: 'erigon', message: 'fee too low' },
      { client: 'nethermind', message: 'transaction underpriced' },
      { client: 'nethermind (older)', message: 'FeeTooLowToCompete' },
      { client: 'besu', message: 'Gas price below configured minimum gas price', code: -32009 },
      { client: 'reth', message: 'transaction underpriced' },
    ],
  },
  {
    // Not forever: a balance is the account's state on that node at that moment; a lagging node
    // has not imported the funding yet, and funds may arrive.
    kind: 'insufficient_funds',
    retryable: false,
    invalidForever: false,
    pattern: /insufficient funds|insufficientfunds|upfront cost exceeds account balance|doesn't have enough funds/i,
    examples: [
      { client: 'geth', message: 'insufficient funds for gas * price + value: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 have 0 want 21000000000000' },
      { client: 'geth', message: 'insufficient funds for gas * price + value: balance 0, tx cost 1000000000000000, overshot 1000000000000000', code: -32000 },
      { client: 'erigon', message: 'insufficient funds' },
      { client: 'nethermind', message: 'insufficient funds for gas * price + value' },
      { client: 'nethermind (older)', message: 'InsufficientFunds, Account balance: 0, cumulative cost: 21000000000000' },
      { client: 'besu', message: 'Upfront cost exceeds account balance', code: -32004 },
      { client: 'reth', message: 'insufficient funds for gas * price + value: have 0 want 21000000000000' },
      { client: 'anvil', message: 'Insufficient funds for gas * price + value', code: -32003 },
      {
        client: 'hardhat',
        message: "Sender doesn't have enough funds to send tx. The max upfront cost is: 210000000000001 and the sender's balance is: 0.",
        code: -32000,
      },
    ],
  },
  {
    // Forever: the intrinsic gas of these bytes (calldata, access list, creation) is fixed by the
    // chain's rules, the same on every node; a fork that changes it (EIP-2028, EIP-7623) is scheduled
    // months ahead, far beyond a pending withdrawal's life.
    kind: 'intrinsic_gas_too_low',
    retryable: false,
    invalidForever: true,
    pattern: /intrinsic gas too low|^intrinsicgas$|intrinsic gas exceeds gas limit|requires at least \d+ gas/i,
    examples: [
      { client: 'geth', message: 'intrinsic gas too low: gas 20000, minimum needed 21000' },
      { client: 'erigon', message: 'IntrinsicGas' },
      { client: 'besu', message: 'Intrinsic gas exceeds gas limit', code: -32003 },
      { client: 'reth', message: 'intrinsic gas too low' },
      { client: 'anvil', message: 'intrinsic gas too low', code: -32003 },
      { client: 'hardhat', message: 'Transaction requires at least 21000 gas but got 20000', code: -32000 },
    ],
  },
  {
    // Not forever: the block gas limit moves with the validators' votes, and a transaction gas cap
    // is a node's setting (Hardhat, geth's RPC) or a rule a later fork may lift.
    kind: 'gas_limit_exceeded',
    retryable: false,
    invalidForever: false,
    pattern: /exceeds block gas limit|gas limit reached|gaslimitexceeded|exceeds transaction gas cap|gas limit too high/i,
    examples: [
      { client: 'geth', message: 'exceeds block gas limit' },
      { client: 'geth', message: 'transaction gas limit too high (cap: 16777216, tx: 100000000)' },
      { client: 'nethermind', message: 'gas limit reached' },
      { client: 'besu', message: 'Transaction gas limit exceeds block gas limit', code: -32005 },
      { client: 'reth', message: 'exceeds block gas limit' },
      { client: 'hardhat', message: 'Transaction gas limit is 100000000 and exceeds transaction gas cap of 16777216', code: -32000 },
    ],
  },
  {
    // Forever when the bytes carry another chain id than this ledger's; when they carry this
    // ledger's id, the node answering is on another chain (a misconfigured back end), and broadcast
    // takes `invalidForever` off (broadcast.ts).
    kind: 'wrong_chain',
    retryable: false,
    invalidForever: true,
    pattern: /invalid chain ?id|wrong chain ?id|chain ?id mismatch|chainid not supported/i,
    examples: [
      { client: 'geth', message: 'invalid chain id for signer' },
      { client: 'anvil', message: 'invalid chain id for signer', code: -32003 },
      { client: 'besu', message: 'Wrong chainId', code: -32000 },
      { client: 'reth', message: 'invalid chain ID' },
      { client: 'hardhat', message: 'Trying to send a raw transaction with an invalid chainId. The expected chainId is 31337', code: -32602 },
    ],
  },
  {
    // Not forever: a node that does not know a transaction type yet (not upgraded for the fork
    // that brought it) refuses it, and an upgraded node takes the same bytes. Before the signature
    // row: geth words it "invalid sender: transaction type not supported".
    kind: 'invalid',
    retryable: false,
    invalidForever: false,
    pattern: /transaction type not supported|tx type not supported|unknown transaction type/i,
    examples: [
      { client: 'geth', message: 'transaction type not supported' },
      { client: 'geth', message: 'invalid sender: transaction type not supported' },
    ],
  },
  {
    // Forever: no sender can be recovered from the signature in these bytes (v, r, s out of range,
    // no point on the curve), on any node. After the chain id and type rows, which geth words
    // under the same "invalid sender".
    kind: 'invalid',
    retryable: false,
    invalidForever: true,
    pattern: /invalid sender|invalid transaction v, r, s values|invalid signature/i,
    examples: [
      { client: 'geth', message: 'invalid sender: invalid transaction v, r, s values' },
      { client: 'geth (older)', message: 'invalid sender' },
      { client: 'besu', message: 'Invalid signature', code: -32000 },
    ],
  },
  {
    // Forever: EIP-1559 makes a tip above the fee cap invalid by the transaction's own two fields.
    kind: 'invalid',
    retryable: false,
    invalidForever: true,
    pattern: /max priority fee per gas higher than max fee per gas|tip above fee cap/i,
    examples: [
      {
        client: 'geth',
        message:
          'max priority fee per gas higher than max fee per gas: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, maxPriorityFeePerGas: 2, maxFeePerGas: 1',
      },
    ],
  },
  {
    // Not forever: pools drain as blocks come.
    kind: 'pool_full',
    retryable: true,
    invalidForever: false,
    pattern: /txpool is full|sub-pool is full|transaction pool is full/i,
    examples: [
      { client: 'geth', message: 'txpool is full' },
      { client: 'erigon', message: 'pending sub-pool is full' },
      { client: 'reth', message: 'txpool is full' },
    ],
  },
];

/** The row a node's message falls under, or undefined for a text no client table knows. */
export function classifyEthMessage(message: string): NodeMessageRow | undefined {
  return ETH_NODE_MESSAGES.find((row) => row.pattern.test(message));
}

/**
 * Hosted providers turn away a call over their quota with a JSON-RPC error inside an HTTP 200
 * answer, each entry of a batch on its own. The call never reached the node, so it says nothing
 * of the call: it is asked again later, like an HTTP 429. Read from the words only, after the
 * refusal rows and never of a gas limit: -32005 is also Besu's "Transaction gas limit exceeds
 * block gas limit".
 */
export const ETH_RATE_LIMIT: { pattern: RegExp; examples: NodeMessageExample[] } = {
  pattern: /rate[- ]?limit|request limit|request rate exceeded|(?<!gas )limit exceeded|exceeded .{0,60}capacity|too many requests|credits limited/i,
  examples: [
    { client: 'infura', message: 'daily request count exceeded, request rate limited', code: -32005 },
    { client: 'infura', message: 'project ID request rate exceeded', code: -32005 },
    {
      client: 'alchemy',
      message:
        'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput',
      code: 429,
    },
    { client: 'quicknode', message: 'credits limited to 6000/sec', code: -32012 },
    { client: 'optimism (public endpoint)', message: 'This request has been rate limited.', code: -32000 },
    { client: 'EIP-1474', message: 'Limit exceeded', code: -32005 },
    {
      client: 'op-geth (relaying its sequencer)',
      message: '429 Too Many Requests: {"jsonrpc":"2.0","error":{"code":-32016,"message":"over rate limit"},"id":2239375}',
      code: -32000,
    },
  ],
};

/** Whether a JSON-RPC error's words are a provider's rate limit rather than the node's answer to the call. */
export function isRateLimit(message: string): boolean {
  return ETH_RATE_LIMIT.pattern.test(message) && classifyEthMessage(message) === undefined;
}

/**
 * A read at a block the node does not serve: not reached yet (a node behind the one that named
 * the block, as behind a load balancer) or no longer held (pruned history). The same read at a
 * later head, or on another backend, answers: it is asked again, never a refusal of the call.
 * anvil answers it with -32602 (invalid params), so the code says nothing: read from the words.
 */
export const ETH_BLOCK_NOT_SERVED: { pattern: RegExp; examples: NodeMessageExample[] } = {
  pattern: /BlockOutOfRangeError/,
  examples: [{ client: 'anvil', message: 'BlockOutOfRangeError: block height is 5 but requested was 10', code: -32602 }],
};

/** Whether a read's error says the node does not serve the block it was asked at. */
export function isBlockNotServed(message: string): boolean {
  return ETH_BLOCK_NOT_SERVED.pattern.test(message);
}

/**
 * A node's refusal of `eth_sendRawTransaction` as a typed error, naming the node that answered
 * (its host) where known. An unknown text is a permanent `invalid` rejection (sending the same
 * bytes again would get the same answer) that proves nothing of the bytes: not `invalidForever`.
 */
export function ethRejection(message: string, rpcCode: number, context: string, node?: string): NodeRejectionError {
  const row = classifyEthMessage(message);
  return new NodeRejectionError(
    row?.kind ?? 'invalid',
    `${context}: ${message}`,
    row?.retryable ?? false,
    { nodeCode: rpcCode, ...(node ? { node } : {}) },
    { invalidForever: row?.invalidForever ?? false },
  );
}
