// What status and report show of `backupctl anomalies` (issue 33 §2): per job,
// the backups of the last 30 days that the catalog's fingerprints flag, judged
// by the one model `anomalies` uses (src/catalog/anomalies.ts: the same
// baseline, the same signals, the same thresholds from BACKUPCTL_ANOMALY_*, the
// same acknowledgements), and the last clean backup. Only what the catalog
// holds: status and report read no backup (verify, restore-test, scan and
// anomalies fill the catalog). A job the catalog knows nothing of has none
// (null), which is not "clean". An anomaly not acknowledged is a warning of the
// job (status --check --strict fails on it); an acknowledged one is shown as such.
import * as z from 'zod/mini';
import type { Context } from '../contract/context.js';
import type { Warning } from './marks-schema.js';
import { ConfigError } from '../errors.js';

const describe = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;

/** The window status and report judge, as `anomalies` judges by default. */
export const ANOMALY_WINDOW_DAYS = 30;

const backupRef = z.nullable(z.object({ id: z.string(), created_at: z.nullable(z.string()) }));

const flagged = z.object({
  backup_id: z.string(),
  created_at: z.nullable(z.string()),
  verdict: describe(z.enum(['anomalous', 'acknowledged']), 'anomalous: a finding not acknowledged; acknowledged: accepted as the new normal with anomalies --ack'),
  findings: describe(z.array(z.object({ signal: z.string(), message: z.string() })), 'What was found (backupctl anomalies --json has the evidence)'),
  last_clean: describe(backupRef, 'The newest clean backup before this one'),
  ack: describe(z.nullable(z.object({ at: z.string(), note: z.nullable(z.string()) })), 'The acknowledgement, when there is one'),
});

export const jobAnomaliesSchema = describe(
  z.nullable(
    z.object({
      since: describe(z.string(), `Backups created since then are judged: status, the last ${ANOMALY_WINDOW_DAYS} days (as backupctl anomalies by default); report, its window; ISO 8601 UTC`),
      judged: describe(z.int(), 'Backups of the window the catalog holds a fingerprint of'),
      anomalous: describe(z.int(), 'Of those, the ones with a finding not acknowledged'),
      acknowledged: describe(z.int(), 'Of those, the ones accepted as the new normal (anomalies --ack)'),
      unchecked: describe(z.int(), 'Of those, the ones whose read did not pass verify\'s checks: not judged'),
      newest: describe(z.nullable(z.object({ backup_id: z.string(), created_at: z.nullable(z.string()), verdict: z.string() })), 'The newest backup judged: clean, anomalous, acknowledged or unchecked'),
      backups: describe(z.array(flagged), 'The anomalous and acknowledged backups of the window, oldest first'),
      last_clean: describe(backupRef, 'The newest clean (or acknowledged) backup of the job'),
    }),
  ),
  'What backupctl anomalies finds in the job\'s backups (status: of the last 30 days; report: of its window), from the catalog in the state folder (no backup is read for it); null when the catalog holds no backup of the job',
);

export type JobAnomalySummary = NonNullable<z.infer<typeof jobAnomaliesSchema>>;

export interface FleetAnomalies {
  /** The anomalies of a job's backups in the catalog; null when it holds none of them. */
  forJob(jobId: string): Promise<JobAnomalySummary | null>;
}

export const NO_ANOMALIES: FleetAnomalies = { forJob: async () => null };

/**
 * The catalog of the context's service, judged as `anomalies --offline` judges it. The thresholds are read
 * first (a bad BACKUPCTL_ANOMALY_* is exit 2, as for anomalies); a catalog that cannot be read is warned
 * about and shows nothing.
 */
export async function readFleetAnomalies(ctx: Context, window: { since: number; until?: number }): Promise<FleetAnomalies> {
  const [{ analyzeJob, thresholdsFrom }, { catalogFor }] = await Promise.all([import('../catalog/anomalies.js'), import('../catalog/scan.js')]);
  const thresholds = thresholdsFrom(ctx.env);
  const since = new Date(window.since);
  const until = window.until ?? Infinity;
  let catalog: Awaited<ReturnType<typeof catalogFor>>;
  let acks: Awaited<ReturnType<(typeof catalog)['acks']>>;
  try {
    catalog = await catalogFor(ctx);
    acks = await catalog.acks();
  } catch (err) {
    // A shared state that cannot be reached ends the command (exit 3), as for the marks.
    if ((await ctx.settings()).stateUrl) throw err;
    ctx.warn(`${(err as Error).message}: anomalies are not shown`);
    return NO_ANOMALIES;
  }
  return {
    async forJob(jobId) {
      try {
        const fps = await catalog.ofJob(jobId);
        if (!fps.length) return null;
        const judged = await analyzeJob(jobId, fps, acks.filter((a) => a.job_id === jobId), (fp) => catalog.listings(fp), { since, thresholds });
        // A report's window ends at --until: the backups after it are not its own.
        const backups = judged.backups.filter((b) => b.created_at === null || Date.parse(b.created_at) <= until);
        if (!backups.length) return null;
        const count = (v: string) => backups.filter((b) => b.verdict === v).length;
        const newest = backups.at(-1)!;
        // The newest clean (or acknowledged) backup up to the window's end: the newest judged one, or the last clean before it.
        const lastClean = newest.verdict === 'clean' || newest.verdict === 'acknowledged' ? { id: newest.backup_id, created_at: newest.created_at } : newest.last_clean;
        return {
          since: since.toISOString(),
          judged: backups.length,
          anomalous: count('anomalous'),
          acknowledged: count('acknowledged'),
          unchecked: count('unchecked'),
          newest: { backup_id: newest.backup_id, created_at: newest.created_at, verdict: newest.verdict },
          backups: backups
            .filter((b) => b.verdict === 'anomalous' || b.verdict === 'acknowledged')
            .map((b) => ({
              backup_id: b.backup_id,
              created_at: b.created_at,
              verdict: b.verdict as 'anomalous' | 'acknowledged',
              findings: b.findings.map((f) => ({ signal: f.signal, message: f.message })),
              last_clean: b.last_clean,
              ack: b.ack ?? null,
            })),
          last_clean: lastClean,
        };
      } catch (err) {
        if ((await ctx.settings()).stateUrl && err instanceof ConfigError) throw err;
        ctx.warn(`job ${jobId}: the catalog could not be judged (${(err as Error).message}): its anomalies are not shown`);
        return null;
      }
    },
  };
}

/** "2026-11-24 02:30 UTC" */
export function utcMinute(iso: string | null): string {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'an unknown time';
}

/** The signals of a backup's findings, each once, in their order. */
export function signalsOf(b: JobAnomalySummary['backups'][number]): string[] {
  return [...new Set(b.findings.map((f) => f.signal))];
}

/** "last clean backup 1f2e… (2026-11-23 02:30 UTC)", or "no clean backup before them". */
export function lastCleanText(a: JobAnomalySummary): string {
  const firstBad = a.backups.find((b) => b.verdict === 'anomalous');
  const clean = firstBad ? firstBad.last_clean : a.last_clean;
  return clean ? `last clean backup ${clean.id} (${utcMinute(clean.created_at)})` : 'no clean backup before them';
}

/**
 * The job's anomalies in a few words, for a table cell: "2 anomalous", "1 acknowledged", "clean",
 * "unchecked"; "" when the catalog holds none of its backups.
 */
export function anomalyCell(a: JobAnomalySummary | null | undefined): string {
  if (!a) return '';
  if (a.anomalous) return `${a.anomalous} anomalous`;
  if (a.acknowledged) return `${a.acknowledged} acknowledged`;
  return a.newest?.verdict === 'unchecked' ? 'unchecked' : 'clean';
}

/** The sentence of an unacknowledged anomaly: the warning status says and --check --strict fails on. */
export function anomalyWarning(a: JobAnomalySummary | null | undefined): Warning | null {
  if (!a?.anomalous) return null;
  const bad = a.backups.filter((b) => b.verdict === 'anomalous');
  const newest = bad.at(-1)!;
  return {
    kind: 'anomaly',
    text:
      `${a.anomalous} backup${a.anomalous === 1 ? '' : 's'} with anomalies not acknowledged (newest ${newest.backup_id}, ${utcMinute(newest.created_at)}: ` +
      `${signalsOf(newest).join(', ')}); the first one's ${lastCleanText(a)}; see backupctl anomalies`,
  };
}

/** The lines of the acknowledged backups: "backup <id> (<time>) acknowledged <time>: <note>". */
export function acknowledgedLines(a: JobAnomalySummary | null | undefined): string[] {
  return (a?.backups ?? [])
    .filter((b) => b.verdict === 'acknowledged')
    .map((b) => `backup ${b.backup_id} (${utcMinute(b.created_at)}) acknowledged ${utcMinute(b.ack?.at ?? null)}${b.ack?.note ? `: ${b.ack.note}` : ''} (${signalsOf(b).join(', ')})`);
}
