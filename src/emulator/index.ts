// The local emulator of the backup service: startEmulator() runs it in-process
// (tests), `backupctl emulator` runs it from the command line.
export { startEmulator, parseQuery } from './server.js';
export { createService, type Service, type ServiceOptions } from './service.js';
export { emulatorRoutes } from './router.js';
export { parseFaultSpec, checkFaultRule, FaultSpecError } from './faults.js';
export { FAULT_KINDS } from './types.js';
export type { Emulator, EmulatorOptions, FaultKind, FaultRule, RecordedRequest, BackupOutcome } from './types.js';
