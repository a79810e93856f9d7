// The demo tour's commentary, phrased from what `status --json` returned, so
// the words can never drift from what the tour shows (src/scripts/demo.mjs).

/** `a`, `a and b`, `a, b and c`. */
function list(items) {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Whole days, else hours, else minutes: "5 days", "7 hours", "12 minutes". */
export function ageWords(seconds) {
  if (seconds >= 2 * 86_400) return plural(Math.floor(seconds / 86_400), 'day');
  if (seconds >= 2 * 3_600) return plural(Math.floor(seconds / 3_600), 'hour');
  return plural(Math.max(1, Math.floor(seconds / 60)), 'minute');
}

function why(job) {
  const name = job.name ?? job.id;
  if (job.health === 'failing') {
    const failed = job.recent.findIndex((s) => s !== 'failed' && s !== 'expired' && s !== 'completed_with_errors');
    const runs = failed === -1 ? job.recent.length : failed;
    return `${name} (its last ${runs === 1 ? 'run' : `${runs} runs`} ${job.newest?.status === 'expired' ? 'expired' : 'failed'})`;
  }
  if (job.health === 'stale') {
    const age = job.last_completed?.age_seconds;
    return `${name} (${age == null ? 'no completed backup' : `newest completed backup ${ageWords(age)} old`})`;
  }
  return name;
}

/**
 * The title of the status step: "8 jobs: 1 failing: crm-db-failing (its last 3 runs failed);
 * 1 stale: archive files (newest completed backup 5 days old); 6 healthy".
 */
export function statusStory(doc) {
  const parts = [];
  for (const health of ['failing', 'stale', 'unknown', 'healthy']) {
    const jobs = doc.jobs.filter((j) => j.health === health);
    if (!jobs.length) continue;
    parts.push(health === 'healthy' ? `${jobs.length} healthy` : `${jobs.length} ${health}: ${list(jobs.map(why))}`);
  }
  return `${plural(doc.jobs.length, 'job')}: ${parts.join('; ')}`;
}

/** The title of the `status --check` step: which jobs it names, and the exit code it gives. */
export function checkStory(doc) {
  const late = doc.jobs.filter((j) => !j.within_max_age).map((j) => j.name ?? j.id);
  if (!late.length) return 'status --check: every job has a completed backup within its max age (exit 0)';
  return `status --check names ${list(late)}, with no completed backup within ${late.length === 1 ? 'its' : 'their'} max age (exit 9)`;
}
