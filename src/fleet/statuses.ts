// Backup and snapshot statuses that mean "not finished yet", as status and report read them.
const IN_PROGRESS = new Set(['pending', 'running', 'starting', 'queued', 'in_progress', 'in-progress', 'transferring', 'pre_request']);

export function isInProgress(status: string | null | undefined): boolean {
  return status != null && IN_PROGRESS.has(status);
}
