import { InvalidArgumentError } from '../../platform/errors.js';
import type { AddressCodec } from '../../ledger/adaptor.js';
import { parsePublicKey } from '../../ledger/public-key.js';
import type { TimeSlicer } from './time-sliced.js';

/**
 * One key of an address-from-publickey request: its ledger-native spelling or a hex form,
 * then the ledger's address. A key that does not parse is a 422 naming its index in the
 * request. The one definition of the route's per-key work, run on the main thread and in the
 * derivation threads alike, so both answer the same.
 */
export function deriveAddress(codec: AddressCodec, text: string, index: number, format: string | undefined): string {
  let key;
  try {
    key = codec.parseNativePublicKey?.(text) ?? parsePublicKey(text, codec.scheme);
  } catch (e) {
    throw new InvalidArgumentError(`keys[${index}]: ${(e as Error).message}`, { index });
  }
  return codec.addressFromPublicKey(key, format);
}

/** Derives the addresses of a whole request. */
export interface AddressDeriver {
  /** The addresses of `keys`, in order; rejects with the error of the failing key of lowest index. */
  derive(codec: AddressCodec, keys: readonly string[], format: string | undefined): Promise<string[]>;
  close(): Promise<void>;
}

/** On the main thread, in the shared time slices (what the route does without a thread pool). */
export function inThreadDeriver(slicer: TimeSlicer): AddressDeriver {
  return {
    derive: (codec, keys, format) => slicer.map(keys, (text, index) => deriveAddress(codec, text, index, format)),
    close: () => Promise.resolve(),
  };
}
