export { createCustodyEmulator, MNG_PATH, LEGACY_MNG_PATH, EMULATOR_PATH } from './emulator.js';
export type { CustodyEmulator, CustodyEmulatorOptions } from './emulator.js';
export { startCustodyEmulator, type RunningCustodyEmulator, type StartCustodyEmulatorOptions } from './start.js';
export { approverPolicySchema, type ApproverPolicy, type ApproverPolicyInput } from './automation.js';
export { emulatorFaultsSchema, type CallbackBody, type EmulatorFaults } from './faults.js';
export { EMULATOR_VERSION } from './status.js';
export type { Operation, OperationStatus, Vault, Participant, Account } from './model.js';
