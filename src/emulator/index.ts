// The local emulator of the backup service: startEmulator() runs it in-process
// (tests), `backupctl emulator` runs it from the command line.
export { startEmulator } from './server.js';
export { emulatorRoutes } from './router.js';
export { parseFaultSpec, checkFaultRule, FaultSpecError } from './faults.js';
export { FAULT_KINDS } from './types.js';
export type { Emulator, EmulatorOptions, FaultKind, FaultRule, RecordedRequest, BackupOutcome } from './types.js';
