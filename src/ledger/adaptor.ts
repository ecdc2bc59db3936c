/**
 * The ledger adaptor contract. This is the one file a new ledger family implements
 * against; everything else in `src/` (routes, vault registry, signing pipeline,
 * signature checks) is shared and ledger-agnostic.
 *
 * Conventions:
 * - Amounts are bigint base units. Hex strings are lower case without `0x` unless a
 *   ledger's own format says otherwise (Ethereum addresses and tx hashes keep `0x`).
 * - One adaptor instance serves one ledger id; it holds no module-level state and gets
 *   everything it touches (config, logger, transport, reservations) through `AdaptorDeps`.
 * - Errors are `AppError` subclasses (`src/platform/errors.ts`): `InvalidArgumentError` for bad
 *   input, `InsufficientFundsError` with figures, `UnavailableError` / `UpstreamError`
 *   with `retryable` for back-end trouble, `PermanentLedgerError` when the ledger says no
 *   for good, and `NodeRejectionError` (kind, retryable) for a node's refusal of a
 *   transaction, mapped once from the node's words in `adaptors/<family>/network/errors.ts`.
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { PublicKey, SignatureScheme } from './public-key.js';
import type { DepositSource } from './deposit-source.js';
import type { Reservations } from './reservations.js';
import type { LocalLedgerNode } from './local-node.js';
import type { HttpFetch } from '../platform/http-client.js';

export type { PublicKey, SignatureScheme };
export type { LocalLedgerNode, LocalNodeMining, MiningAction } from './local-node.js';

/** JSON-safe value: what adaptor state must be so it can be stored and reloaded. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export interface AssetInfo {
  /** Symbol as clients name it in `asset` fields (`ETH`, `USDC`, `BTC`, `XLM`, `USDC:G…`). */
  symbol: string;
  decimals: number;
  /** True for the ledger's own coin. */
  native: boolean;
  /** Ledger-specific identifier of a token: ERC-20 contract, Stellar issuer, … */
  contract?: string;
}

export interface LedgerHealth {
  healthy: boolean;
  errorMessage?: string;
  /** Latest block / ledger height the back end reports. */
  height?: number;
  /** What the back end says its network is (chain id, genesis, passphrase). */
  network?: string;
  /** The back end answered, but serves another network than the configured one. */
  wrongNetwork?: boolean;
}

export interface Balance {
  address: string;
  asset: string;
  /** Base units. */
  amount: bigint;
}

/** One address a vault controls, with the key that signs for it. */
export interface VaultAddress {
  address: string;
  publicKey: PublicKey;
  /** The custody service's identifier for the key (the DER SPKI hex it reported). */
  keyId: string;
  /** BIP44 vaults: `change/index`, e.g. `0/3`. */
  path?: string;
  change?: boolean;
}

/** What a withdrawal spends from. */
export interface VaultSource {
  vaultId: string;
  /** Addresses that may fund the withdrawal (one for a single-key vault). */
  addresses: VaultAddress[];
  /** Where change goes (UTXO ledgers); the vault's first address otherwise. */
  changeAddress: string;
}

export interface WithdrawalIntent {
  /** Operation reference, used to own reservations (nonces, UTXOs, sequences). */
  reference: string;
  recipientAddress: string;
  asset: AssetInfo;
  amount: bigint;
  /** One of `feeLevels()`, or a custom constant the adaptor documents (gwei, sat/vB, stroops). */
  fee: string;
  /** Ledger memo, when the request carried one (only on a ledger that `carriesMemo`). */
  memo?: string;
  /**
   * The request's consent to pay an owner no private key exists for (Solana: an address off the
   * ed25519 curve, a program-derived address), which an adaptor refuses without it. Ledgers
   * without such addresses ignore it.
   */
  allowOffCurveRecipient?: boolean;
}

/**
 * How the custody service gets from a payload's preimage to what the key signs. `PLAIN`
 * (the sign request's name for plain data): the payload is the data itself, which ed25519
 * keys sign whole (a Solana message).
 */
export type HashAlgorithm = 'DOUBLE_SHA256' | 'SHA3_256' | 'SHA256' | 'PLAIN' | 'NONE';

/** One digest to be signed. Index i of the sign request's `dataToSign` is payload i. */
export interface SigningPayload {
  /** Hex digest the custody service signs (32 bytes), or with `PLAIN` the data itself. */
  digest: string;
  /** Custody key identifier to sign with (what the vault registry stored). */
  keyId: string;
  /** Hex public key the signature must verify against (33-byte compressed or 32-byte ed25519). */
  publicKey: string;
  /** Hex preimage the digest was computed from, so approvers can see what they sign. */
  preimage?: string;
  hashAlgorithm: HashAlgorithm;
  txIndex: number;
  inputIndex: number;
}

/** The result of `craft`: unsigned transaction(s), their digests, and adaptor state. */
export interface UnsignedWithdrawal {
  /** Hex-serialized unsigned transactions, shown to clients in `appData.txs`. */
  txs: { serialized: string }[];
  payloads: SigningPayload[];
  /** Fee the withdrawal pays at most, base units of the native asset. */
  fee: bigint;
  /** Adaptor-private state `combine` needs; JSON-safe (bigints as decimal strings). */
  state: Json;
  /** Latest time (ms since epoch) the transaction can still be accepted by the ledger, if bounded. */
  expiresAt?: number;
}

/** A signature the pipeline verified against the stored digest and key. */
export interface VerifiedSignature {
  payloadIndex: number;
  /** 64 bytes `r || s`; for secp256k1 already low-S. */
  signature: Uint8Array;
  /** secp256k1 recovery id (0/1) matching the low-S signature; 0 for ed25519. */
  recoveryId: 0 | 1;
}

export interface SignedTx {
  txIndex: number;
  /** Hex of the signed transaction as the ledger accepts it. */
  serialized: string;
  /** The id the ledger will know it by, computed before broadcast. */
  txid: string;
}

export interface BroadcastResult {
  txid: string;
  /** The node already had it (mempool or chain): success, not an error. */
  alreadyKnown: boolean;
}

/** What the pipeline knows of a send that the node cannot tell; an adaptor's answers must stay right without it. */
export interface BroadcastContext {
  /** No node has these bytes yet (assembled in this run, whose move to SIGNED won): a look-up telling a resend from a send may be skipped. */
  firstSend?: boolean;
}

/** One transaction's answer within `broadcastMany`: what `broadcast` would have returned or thrown. */
export type SendOutcome = { ok: true; result: BroadcastResult } | { ok: false; error: unknown };

export interface TxStatus {
  /**
   * `unknown`: the node does not know the transaction while what it spends (nonce, sequence,
   * inputs) is still unspent: it was dropped (or reorganised out) and can be sent again.
   */
  state: 'pending' | 'confirmed' | 'failed' | 'unknown';
  confirmations: number;
  blockHeight?: number;
  /** Why it failed (revert, ledger result code), for `failed`. */
  reason?: string;
  /** `failed` because what it spends was spent by this other transaction (a conflict, or our own replacement). */
  spentBy?: string;
  /**
   * For `failed` while not mined (it can never be): confirmations of what proves it, i.e. the block
   * holding the transaction that took its nonce or spent its input, or the ledger that closed past
   * its sequence number, time bound or durable nonce. The pipeline ends a withdrawal FAILED only
   * once this reaches `confirmations`: before that the proof's own block may leave the chain.
   * Absent: nothing proves it yet, and the withdrawal is looked at again.
   */
  proofConfirmations?: number;
}

/** A vault's one-time setup (`LedgerAdaptor.vaultSetup`): a payment of the native asset from the vault. */
export interface VaultSetup {
  /** What it makes, for people and clients: `nonce-account`. */
  kind: string;
  /** Where the setup pays `amount` (a Solana vault's nonce address). */
  recipientAddress: string;
  /** Base units of the native asset it pays (a rent-exempt minimum); the fee comes on top. */
  amount: bigint;
  /** Why this amount, in words. */
  why: string;
}

export type ReplacementKind = 'speed-up' | 'cancel';

/** What `replace` builds from: the latest attempt of a broadcast withdrawal. */
export interface ReplacementInput {
  kind: ReplacementKind;
  /** What the latest attempt crafted (its state holds nonce, inputs or sequence). */
  unsigned: UnsignedWithdrawal;
  /** The latest attempt's signed transactions (a Stellar fee-bump wraps them). */
  signed: SignedTx[];
  /** The fee as asked (a level or the ledger's custom unit); absent = one level up. */
  fee?: string;
  /** Where a cancel sends the funds back to. */
  source: VaultSource;
}

export interface AdaptorDeps {
  logger: Logger;
  /**
   * HTTP transport for the back end: the service's keep-alive client (`keepAliveFetch`, a third
   * of the CPU `fetch` spends on a call); tests may pass `fetch` itself or a fake.
   */
  fetch: HttpFetch;
  reservations: Reservations;
  /**
   * The least time a reservation that expires by itself (a claimed coin, a durable nonce) must
   * be held: a withdrawal may wait this long for its quorum (SIGN_TIMEOUT_SECONDS, plus an hour
   * for its broadcast). A claim that ran out before would let a later withdrawal take the same
   * coins or nonce, and one of the two would fail.
   */
  minReservationMs?: number;
}

export interface LedgerAdaptor {
  readonly ledgerId: string;
  readonly family: string;
  /** Human name of the network: `mainnet`, `sepolia`, `regtest`, … */
  readonly network: string;
  readonly scheme: SignatureScheme;
  readonly nativeAsset: AssetInfo;
  /** Confirmations after which a transaction counts as final. */
  readonly confirmations: number;
  /**
   * Whether a withdrawal to one of the vault's own addresses is a consolidation (UTXO ledgers:
   * many coins into one). Without it such a withdrawal is refused: on an account ledger it
   * would only burn a fee.
   */
  readonly consolidates?: boolean;
  /**
   * Whether a transaction carries a memo to its recipient (Stellar), which exchanges use to
   * credit a deposit. Without it a withdrawal with a memo is refused: sent without the memo, the
   * deposit could be lost.
   */
  readonly carriesMemo?: boolean;

  /** Native asset first, then configured tokens. */
  assets(): AssetInfo[];

  /** Named fee levels (`HIGH`, `MEDIUM`, `LOW`, …); the first is the default. */
  feeLevels(): string[];

  /** Address formats `addressFromPublicKey` accepts; the first is the default. */
  addressFormats(): string[];

  /** Back end reachable, its height, and whether its network is the configured one. Never throws. */
  health(): Promise<LedgerHealth>;

  /**
   * Ledger-native spellings of a public key (Stellar `G…`), for callers that accept keys
   * as text. Return undefined when the text is not such a form; hex forms are parsed in `src/`.
   */
  parseNativePublicKey?(text: string): PublicKey | undefined;

  /** Address for a public key. Pure and fast; throws InvalidArgumentError for an unknown format. */
  addressFromPublicKey(key: PublicKey, format?: string): string;

  /** Whether `address` is a valid recipient on this ledger's network. Pure and fast. */
  isValidAddress(address: string): boolean;

  /**
   * Optional: one spelling of the account that `address` pays, so that two spellings of one
   * account compare equal (`src/` compares recipients with the vault's own addresses only in
   * this form). Ethereum: any letter case → EIP-55; Stellar: a muxed `M…` address or one with
   * `?memo=` → its `G…` account; Bitcoin: the address of its output script (bech32 in lower
   * case). Pure and fast; called only with addresses `isValidAddress` accepts. Leave it out when
   * every address has one spelling (Solana's base58): the address is then its own form.
   */
  canonicalAddress?(address: string): string;

  /** Balances of each address in each asset, base units. Batched: one round trip where the back end allows. */
  getBalances(addresses: string[], assets: AssetInfo[]): Promise<Balance[]>;

  /** Whether each address has ever been used (for BIP44 gap-limit scans). Defaults to "has a balance". */
  addressesUsed?(addresses: string[]): Promise<boolean[]>;

  /**
   * Builds the unsigned transaction(s) and their signing payloads, reserving what must not be
   * used twice (nonce, UTXOs, sequence) under `intent.reference`.
   */
  craft(source: VaultSource, intent: WithdrawalIntent): Promise<UnsignedWithdrawal>;

  /** Frees what `craft` reserved, when the operation failed or expired before broadcast. */
  release(unsigned: UnsignedWithdrawal, reference: string): Promise<void>;

  /**
   * Assembles signed transactions from verified signatures (one per payload, in payload order).
   * Must check the result: the signed transaction spends from the vault and is the one crafted,
   * so each payload's digest and key are the ones its signature was checked against when it
   * came in (`signatures.ts`, the one place signatures are checked; combine does not check them again).
   */
  combine(unsigned: UnsignedWithdrawal, signatures: VerifiedSignature[]): SignedTx[];

  /**
   * Sending order, for ledgers whose accounts number their transactions (Ethereum nonce,
   * Stellar sequence): the sending account and this withdrawal's number in it. The pipeline
   * sends a transaction only once the node's next number for the account (`nextSequence`) has
   * reached it, so a transaction signed before its predecessor waits instead of failing on a
   * node that refuses gaps. Leave both out for ledgers without such an order (Bitcoin).
   */
  sendOrder?(unsigned: UnsignedWithdrawal): { account: string; sequence: bigint } | undefined;

  /** The number the ledger takes next from `account`, counting what the node already holds (pending nonce; sequence + 1). */
  nextSequence?(account: string): Promise<bigint>;

  /**
   * Sends a signed transaction. "Already known" is success with `alreadyKnown: true`. A refusal
   * is a `NodeRejectionError`; it carries `invalidForever` only when the transaction's own bytes
   * can never be valid (bad signature, wrong chain, gas below the intrinsic minimum). Any other
   * refusal leaves the withdrawal open: the same bytes may land later or from elsewhere.
   */
  broadcast(tx: SignedTx, context?: BroadcastContext): Promise<BroadcastResult>;

  /**
   * Optional: sends several signed transactions in as few round trips as the node allows (a
   * JSON-RPC batch; Horizon, which has none, one at a time without looking each up first),
   * which the node takes in the order given, each answered as `broadcast` would answer it. The
   * account sender hands it a run of one account's consecutive numbers, so a batch payout costs
   * a round trip per batch, not per transaction. The answers cover a prefix of `txs`: those
   * past it were not sent (a refusal, or a later round trip failed; they go again later).
   * Throws only when nothing was answered. Leave it out where a run costs no less than its
   * transactions one by one: the sender then sends them one at a time through `broadcast`.
   */
  broadcastMany?(txs: SignedTx[]): Promise<SendOutcome[]>;

  /** Where a broadcast transaction stands. */
  txStatus(txid: string, unsigned: UnsignedWithdrawal): Promise<TxStatus>;

  /**
   * A replacement of a broadcast transaction that only one of them can land: a speed-up
   * (same transfer, higher fee) or a cancel, with at least the ledger's replacement minimum over
   * `input.unsigned`. A cancel is the invalidation of the original: a transaction that, once on
   * the ledger, makes the original impossible and pays nobody (Ethereum: nothing to the vault at
   * the same nonce; Bitcoin: a spend of its inputs back to the vault; Stellar: a bump of the
   * account's sequence past it; Solana: an advance of its durable nonce). The pipeline sends one
   * on request and for a transaction the node refused, after INVALIDATE_REFUSED_AFTER_SECONDS. Reserves nothing new. Throws
   * ConflictError when the ledger cannot replace this transaction, InvalidArgumentError for a
   * fee below the minimum (naming it). Absent: the ledger offers no replacement.
   */
  replace?(input: ReplacementInput): Promise<UnsignedWithdrawal>;

  /**
   * Optional: a transaction the vault must make once before its withdrawals can be crafted (a
   * Solana vault's durable-nonce account), or undefined when none is needed now. The core makes
   * it as a withdrawal of its own to `recipientAddress` (its own sign request, fee and amount),
   * ahead of the withdrawal that needed it, and crafts that one once the setup is confirmed.
   */
  vaultSetup?(source: VaultSource): Promise<VaultSetup | undefined>;

  /** Why a transaction that is not mined may be stuck (fee under the market, predecessor missing), if the node can tell. */
  stuckReason?(unsigned: UnsignedWithdrawal): Promise<string | undefined>;

  /** What arrives at addresses, block by block, for the deposit scanner (deposit-source.ts). Absent: the ledger has no deposit scanning. */
  readonly depositSource?: DepositSource;
}

/**
 * The pure address operations of a ledger: everything that answers without a back end.
 * A configured adaptor is one; a family gives one for each built-in id (`addressCodec`).
 */
export type AddressCodec = Pick<
  LedgerAdaptor,
  'ledgerId' | 'family' | 'network' | 'scheme' | 'addressFormats' | 'parseNativePublicKey' | 'addressFromPublicKey' | 'isValidAddress' | 'canonicalAddress'
>;

/** A ledger family: how to build an adaptor for one configured ledger id. */
export interface LedgerFamily<Options = unknown> {
  readonly family: string;
  /** Ledger ids this family knows without being told its family (`eth`, `ethtest`, …). */
  readonly knownLedgers: readonly string[];
  /** Validates one ledger's options from configuration; errors are reported at boot. */
  readonly optionsSchema: z.ZodType<Options>;
  /** Names of option fields that hold secrets (RPC URLs with keys), censored in logs. */
  readonly sensitiveOptions?: readonly string[];
  create(ledgerId: string, options: Options, deps: AdaptorDeps): LedgerAdaptor;
  /** Address operations of a built-in id (one of `knownLedgers`) with its default options; no back end, no network. */
  addressCodec?(ledgerId: string): AddressCodec | undefined;
  /**
   * Optional: starts a local development node for this family. The sandbox calls it for every
   * registered family that has one and configures the ledger and its faucet from the result,
   * so a family brings its own node without the sandbox naming it. Loaded lazily: production
   * starts never call it.
   */
  localNode?: () => Promise<LocalLedgerNode>;
}
