import { createRequire } from 'node:module';
import * as wasm from 'tiny-secp256k1';

/**
 * Public-key recovery from a secp256k1 signature, the costliest step of every signing
 * callback (`signatures.ts`, the one place signatures are checked): by libsecp256k1 (the
 * `secp256k1` package's native binding, loaded from the prebuilt binary the package ships for Linux, macOS and Windows, no compiler needed) where
 * it loads, about five times faster than tiny-secp256k1's WebAssembly build (0.06 against
 * 0.25-0.28 ms here), and by tiny-secp256k1 elsewhere. Both give the same answer
 * (test/core/secp256k1.test.ts); which one runs is logged at start-up.
 */
interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recoveryId: number, message32: Uint8Array, compressed?: boolean): Uint8Array;
}

function loadNative(): NativeSecp256k1 | undefined {
  try {
    // Only the binding: the package's own fallback is plain-JavaScript elliptic, slower than WebAssembly.
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return undefined;
  }
}

export interface Secp256k1 {
  readonly name: 'libsecp256k1' | 'tiny-secp256k1';
  /** The public key that made the 64-byte `r‖s` signature with `recoveryId` over `digest`, or null when none does. */
  recover(digest: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1, compressed: boolean): Uint8Array | null;
}

/** `f()`, or `otherwise` where the library throws (r no curve point's x): nothing recovers then. */
function orElse<T>(f: () => T, otherwise: T): T {
  try {
    return f();
  } catch {
    return otherwise;
  }
}

export const wasmSecp256k1: Secp256k1 = {
  name: 'tiny-secp256k1',
  recover: (digest, signature, recoveryId, compressed) => orElse(() => wasm.recover(digest, signature, recoveryId, compressed), null),
};

function nativeSecp256k1(native: NativeSecp256k1): Secp256k1 {
  return {
    name: 'libsecp256k1',
    recover: (digest, signature, recoveryId, compressed) => orElse(() => native.ecdsaRecover(signature, recoveryId, digest, compressed), null),
  };
}

const native = loadNative();

/** The fastest secp256k1 this machine has. */
export const secp256k1: Secp256k1 = native ? nativeSecp256k1(native) : wasmSecp256k1;
