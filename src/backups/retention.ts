// The retention periods and the one way backupctl writes a retention (issue 31 §3):
// a job's schedules, a droplet's or volume's snapshot schedule, backups as code's plan
// and the retention forecast all say `d7 w4 m3`, so what a plan says it will set reads
// the same as the Retention column of `jobs list` afterwards.

/** The retention periods, in the order the service, the tables and the forecast name them. */
export const RETENTION_PERIODS = ['hourly', 'daily', 'weekly', 'monthly'] as const;
export type Period = (typeof RETENTION_PERIODS)[number];
export type Counts = Record<Period, number>;

/**
 * `h6 d7 w4 m3`: the one retention text. Periods in that order, whatever the record's;
 * a count of 0 keeps nothing and is left out; `none` when every count is 0; undefined
 * (an empty cell) when the record holds no retention (absent, null, or Laravel's `[]`).
 */
export function retentionText(retention: unknown): string | undefined {
  if (!retention || typeof retention !== 'object' || Array.isArray(retention)) return undefined;
  const counts = retention as Record<string, unknown>;
  const given = RETENTION_PERIODS.filter((k) => counts[k] !== null && counts[k] !== undefined);
  if (!given.length) return undefined;
  const kept = given.filter((k) => !(typeof counts[k] === 'number' && counts[k] === 0) && counts[k] !== '0');
  return kept.length ? kept.map((k) => `${k[0]}${String(counts[k])}`).join(' ') : 'none';
}
