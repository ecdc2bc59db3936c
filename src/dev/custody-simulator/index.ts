export { createCustodySimulator, SIMULATOR_VERSION } from './simulator.js';
export type { CustodySimulator, CustodySimulatorOptions, QuorumOptions, SimOperation, SimVaultInfo } from './simulator.js';
export { startCustodySimulator, type RunningCustodySimulator } from './start.js';
export { faultsSchema, type CallbackBody, type Faults } from './faults.js';
export type { VaultScheme } from './keys.js';
