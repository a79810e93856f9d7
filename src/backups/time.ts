// The service's times, for the backups module: the one parser lives in
// src/util/time.ts (the output layer below the domain reads it too). The rule:
// a time with no zone is UTC (the service speaks UTC).
import { parseServiceTime } from '../util/time.js';


/** When a backup finished, else when it was created: what its age is measured from. */
export function backupTime(b: { completed_at?: unknown; created_at?: unknown } | null | undefined): number | undefined {
  return parseServiceTime(b?.completed_at) ?? parseServiceTime(b?.created_at);
}
