/**
 * What the API's main thread and its address-derivation threads (`src/app/derive-thread.ts`) say to
 * each other. Everything here crosses a thread boundary by structured clone: plain data only.
 */
import { AppError, InvalidArgumentError } from '../../platform/errors.js';
import type { AddressCodec } from '../../ledger/adaptor.js';

/** A configured ledger as a thread rebuilds it: its family by name, its validated options. */
export interface LedgerSpec {
  ledgerId: string;
  family: string;
  options: unknown;
}

export interface DeriveWorkerData {
  ledgers: LedgerSpec[];
}

/**
 * What decides a ledger's addresses. The main thread hands a thread only the ledgers whose
 * description there matches its own codec, so both sides derive the same addresses.
 */
export interface CodecDescription {
  ledgerId: string;
  family: string;
  network: string;
  scheme: string;
  formats: string[];
}

export function describeCodec(codec: AddressCodec): CodecDescription {
  return { ledgerId: codec.ledgerId.toLowerCase(), family: codec.family, network: codec.network, scheme: codec.scheme, formats: codec.addressFormats() };
}

export function sameCodec(a: CodecDescription, b: CodecDescription): boolean {
  return (
    a.ledgerId === b.ledgerId && a.family === b.family && a.network === b.network && a.scheme === b.scheme && a.formats.join('\n') === b.formats.join('\n')
  );
}

/** One chunk of a request: `keys` are the request's keys from index `from`. */
export interface ChunkTask {
  ledgerId: string;
  format: string | undefined;
  from: number;
  keys: string[];
}

/** An error as it crossed the boundary; an AppError keeps its status, code and fields. */
export interface WireError {
  name: string;
  message: string;
  app?: { status: number; errCode: string; title: string; details: string; retryable: boolean; fields: Record<string, unknown> };
}

export type WorkerMessage =
  | { type: 'ready'; codecs: CodecDescription[] }
  | { type: 'done'; addresses: string[] }
  /** The chunk stopped at its first failing key, `index` counted in the whole request. */
  | { type: 'failed'; index: number; error: WireError };

export function toWire(e: unknown): WireError {
  const err = e instanceof Error ? e : new Error(String(e));
  const wire: WireError = { name: err.name, message: err.message };
  if (err instanceof AppError) {
    wire.app = { status: err.status, errCode: err.errCode, title: err.title, details: err.details, retryable: err.retryable, fields: err.fields };
  }
  return wire;
}

/** The error the main thread raises for a key a thread could not derive: the same answer as in-thread. */
export function fromWire(wire: WireError): Error {
  const a = wire.app;
  if (a?.errCode === 'ERR_INVALID_ARGUMENTS' && a.status === 422) return new InvalidArgumentError(a.details, a.fields);
  if (a) return new AppError(a.status, a.errCode, a.title, a.details, a.retryable, { fields: a.fields });
  const err = new Error(wire.message);
  err.name = wire.name;
  return err;
}

/** The derivation threads' nice value on Linux (0 normal, 19 lowest): below the event loop's, which answers every other client. */
export const DERIVE_THREAD_NICE = 10;
