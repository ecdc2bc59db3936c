export { createCustodyEmulator, MNG_PATH, LEGACY_MNG_PATH, EMULATOR_PATH } from './emulator.js';
export type { CustodyEmulator, CustodyEmulatorOptions } from './emulator.js';
export {
  startCustodyEmulator,
  startInMemoryCustodyEmulator,
  type RunningCustodyEmulator,
  type RunningInMemoryCustodyEmulator,
  type StartCustodyEmulatorOptions,
  type StartInMemoryCustodyEmulatorOptions,
} from './start.js';
export type { DirectControl, DirectFaults, DirectOperation, DirectVault, QuorumOptions } from './direct-control.js';
export { createMemoryStore, type MemoryStore } from './store.js';
export { randomSigner } from './keys.js';
export { approverPolicySchema, type ApproverPolicy, type ApproverPolicyInput } from './automation.js';
export { emulatorFaultsSchema, type CallbackBody, type EmulatorFaults } from './faults.js';
export { EMULATOR_NOTICE, releaseVersion } from './status.js';
export type { Operation, OperationStatus, Vault, Participant, Account } from './model.js';
