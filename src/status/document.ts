// The status document (what `status --json` prints and `schema status`
// describes) and the rules that judge a job from its recent backups. Pure:
// no requests, no output, `now` always given.
//
// The document, in short (statusDocumentSchema below is the whole of it):
//   { generated_at, allow_errors, summary: {failing, stale, healthy, unknown},
//     jobs: [{ id, name, compute: {type, server_id, server_name, host, region},
//              schedules: [{id, cron, timezone, status, words, next_run}], next_run,
//              newest: Backup|null, last_completed: Backup|null, recent: [status, ...newest first],
//              health, max_age_seconds, within_max_age, storage: [name] }],
//     droplets: [Machine]|null, volumes: [Machine]|null, resources: [Resource]|null }
//   Backup = {id, status, created_at, completed_at, age_seconds}
//   Machine = {id, name, status, frequency_hours, timezone, newest: Snapshot|null, last_completed: Snapshot|null}
//   Resource = {id, type, provider, account, last_known_ip, frequency, newest, last_completed}
//   Snapshot = {id, status, started_at, completed_at, age_seconds}
import * as z from 'zod/mini';
import { restoreMarkSchema, verifyMarkSchema, warningSchema } from '../fleet/marks-schema.js';
import { jobAnomaliesSchema } from '../fleet/anomalies.js';
import { allowedAge } from '../fleet/schedule.js';
import { ageMs, parseServiceTime } from '../util/time.js';
// What a status means and which backup is newest: one definition, in the backups module.
import { BACKUP_STATUSES_BY_OUTCOME, SNAPSHOT_STATUSES_BY_OUTCOME, isFailure, isInProgress, isSuccess } from '../backups/status.js';
import { newestFirst } from '../backups/newest.js';


export const HEALTH_VALUES = ['failing', 'stale', 'healthy', 'unknown'] as const;
export type Health = (typeof HEALTH_VALUES)[number];

/** The backup statuses of the interface, in the order metrics list them (src/backups/status.ts). */
export const BACKUP_STATUSES = BACKUP_STATUSES_BY_OUTCOME;

/** How many of the newest backups the strip of marks and the counts cover. */
export const RECENT_WINDOW = 10;
/** The default of --max-age. */
export const DEFAULT_MAX_AGE_MS = 26 * 3_600_000;


const describe = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;
const nullableString = (text: string) => describe(z.nullable(z.string()), text);
const nullableNumber = (text: string) => describe(z.nullable(z.number()), text);
const nullableInt = (text: string) => describe(z.nullable(z.int()), text);

const backupSummary = describe(
  z.object({
    id: nullableString('Backup id'),
    status: nullableString('pending, running, completed, completed_with_errors, failed or expired'),
    created_at: nullableString('As the service sent it'),
    completed_at: nullableString('As the service sent it'),
    age_seconds: nullableInt('Seconds since completed_at (created_at when not completed), at generated_at'),
  }),
  'A backup of the job',
);

const snapshotSummary = describe(
  z.object({
    id: describe(z.nullable(z.union([z.string(), z.number()])), 'Snapshot id'),
    status: nullableString('Snapshot status'),
    started_at: nullableString('As the service sent it'),
    completed_at: nullableString('As the service sent it'),
    age_seconds: nullableInt('Seconds since completed_at (started_at when not completed), at generated_at'),
  }),
  'A snapshot',
);

const scheduleStatus = z.object({
  id: describe(z.nullable(z.number()), 'Schedule id'),
  cron: nullableString('Cron expression'),
  timezone: nullableString('Time zone of the expression (UTC when the service gives none)'),
  status: nullableString('As the service sent it (active)'),
  words: nullableString('The expression in words with its time zone, e.g. "daily at 02:00 Europe/Paris"; null when unreadable'),
  next_run: nullableString('Next run, ISO 8601 UTC, computed from cron and time zone; null when unreadable or paused'),
});

const jobStatus = z.object({
  id: z.string(),
  name: z.nullable(z.string()),
  compute: describe(
    z.object({
      type: nullableString('server, ss_serverless or ss_agent'),
      server_id: z.nullable(z.number()),
      server_name: z.nullable(z.string()),
      host: z.nullable(z.string()),
      region: z.nullable(z.string()),
    }),
    'Where the job runs',
  ),
  schedules: z.array(scheduleStatus),
  next_run: nullableString('The soonest next run of its schedules'),
  newest: describe(z.nullable(backupSummary), 'The newest backup by created_at, whatever its status'),
  last_completed: describe(
    z.nullable(backupSummary),
    'The newest backup with status completed (or completed_with_errors with --allow-errors)',
  ),
  recent: describe(z.array(z.string()), `Statuses of the last ${RECENT_WINDOW} backups, newest first`),
  health: describe(
    z.enum(HEALTH_VALUES),
    'failing: the newest finished backup failed or expired (or completed with errors, without --allow-errors), or the verify or restore test ' +
      'of the newest completed backup failed, whatever the max age; stale: no completed backup within the max age; healthy; unknown: no ' +
      'completed backup yet and the job is younger than the max age',
  ),
  max_age_seconds: describe(z.int(), 'The max age applied to this job: --max-age when given, else its schedule\'s interval plus a grace (25%, at least 2h), else 26h'),
  max_age_from: describe(z.enum(['flag', 'schedule', 'default']), 'Where max_age_seconds comes from: --max-age, the schedule, or the 26h default (no readable active schedule)'),
  within_max_age: describe(z.boolean(), 'last_completed is younger than max_age_seconds (or the job is new): not stale'),
  storage: describe(z.array(z.string()), 'Names of its storage destinations'),
  verify: describe(
    z.nullable(verifyMarkSchema),
    'The verify mark of the newest completed backup (of_newest true), else the latest verify of an older backup, shown as such (of_newest false, never judged); from the marks in the state folder, of this service only; null when none',
  ),
  restore_test: describe(z.nullable(restoreMarkSchema), 'The restore-test mark, likewise'),
  anomalies: jobAnomaliesSchema,
  warnings: describe(
    z.array(warningSchema),
    'What status --check reports without failing (it fails on them with --strict): an unchecked or not-tested mark of the newest backup, a job not tested for longer than its max age, a backup with anomalies not acknowledged',
  ),
});

const SNAPSHOT_HEALTH_TEXT =
  'failing: the newest finished snapshot failed or expired; stale: no completed snapshot within max_age_seconds (a paused one goes stale too: ' +
  'nothing protects it); unknown: no completed snapshot yet; healthy';
const snapshotJudged = {
  health: describe(z.enum(HEALTH_VALUES), SNAPSHOT_HEALTH_TEXT),
  max_age_seconds: describe(z.int(), 'The frequency plus a grace (25%, at least 2h); 26h when the frequency is unknown'),
  within_max_age: describe(z.boolean(), 'last_completed is younger than max_age_seconds'),
};

const machineStatus = z.object({
  id: z.union([z.string(), z.number()]),
  name: z.nullable(z.string()),
  status: nullableString('active, paused, ...'),
  frequency_hours: nullableNumber('Hours between snapshots'),
  timezone: z.nullable(z.string()),
  newest: describe(z.nullable(snapshotSummary), 'The newest snapshot by started_at, whatever its status'),
  last_completed: describe(z.nullable(snapshotSummary), 'The newest completed snapshot'),
  ...snapshotJudged,
});

const resourceStatus = z.object({
  id: z.number(),
  type: z.nullable(z.string()),
  provider: z.nullable(z.string()),
  account: z.nullable(z.string()),
  last_known_ip: z.nullable(z.string()),
  frequency: describe(z.nullable(z.union([z.string(), z.number()])), 'Schedule frequency when the service sends it (h24)'),
  newest: describe(z.nullable(snapshotSummary), 'The newest snapshot by started_at, among the newest snapshots of the account'),
  last_completed: describe(z.nullable(snapshotSummary), 'The newest completed snapshot'),
  ...snapshotJudged,
});

export const statusDocumentSchema = describe(
  z.object({
    generated_at: describe(z.string(), 'When the status was read, ISO 8601 UTC; ages are measured from it'),
    allow_errors: describe(z.boolean(), 'Whether completed_with_errors counted as completed (--allow-errors)'),
    summary: describe(
      z.object({ failing: z.int(), stale: z.int(), healthy: z.int(), unknown: z.int() }),
      'Jobs by health',
    ),
    snapshot_summary: describe(
      z.nullable(z.object({ failing: z.int(), stale: z.int(), healthy: z.int(), unknown: z.int() })),
      'Droplets, volumes and snapshot resources by health; null when not read',
    ),
    jobs: describe(z.array(jobStatus), 'Worst first: failing, stale, unknown, healthy; then by name'),
    droplets: describe(z.nullable(z.array(machineStatus)), 'Droplets whose snapshot schedule is not inactive; null when not read (--job, or the list failed)'),
    volumes: describe(z.nullable(z.array(machineStatus)), 'Volumes likewise'),
    resources: describe(z.nullable(z.array(resourceStatus)), 'Snapshot resources with backups activated; null when not read'),
    unread: describe(
      z.optional(z.array(z.object({ section: z.string(), reason: z.string() }))),
      'Sections that could not be read (droplets, volumes, snapshot resources) and why: status --check fails on each, a warning kind of its own',
    ),
  }),
  'backupctl status: fleet health at a glance',
);

export type StatusDocument = z.infer<typeof statusDocumentSchema>;
export type JobStatus = z.infer<typeof jobStatus>;
export type ScheduleStatus = z.infer<typeof scheduleStatus>;
export type BackupSummary = z.infer<typeof backupSummary>;
export type MachineStatus = z.infer<typeof machineStatus>;
export type ResourceStatus = z.infer<typeof resourceStatus>;
export type SnapshotSummary = z.infer<typeof snapshotSummary>;

// ---------------------------------------------------------------------------
// Judging a job

export interface BackupLike {
  id?: unknown;
  status?: unknown;
  created_at?: unknown;
  started_at?: unknown;
  completed_at?: unknown;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

function inFuture(when: number | undefined, now: number): boolean {
  return when !== undefined && ageMs(when, now) === undefined;
}

function ageSeconds(when: number | undefined, now: number): number | null {
  const age = ageMs(when, now);
  return age === undefined ? null : Math.round(age / 1000);
}

/** When a backup finished (else began), for its age. */
function whenOf(b: BackupLike): number | undefined {
  return parseServiceTime(str(b.completed_at)) ?? parseServiceTime(str(b.created_at));
}

export function backupSummaryOf(b: BackupLike, now: number): BackupSummary {
  const completedAt = str(b.completed_at);
  const createdAt = str(b.created_at);
  return {
    id: str(b.id),
    status: str(b.status),
    created_at: createdAt,
    completed_at: completedAt,
    age_seconds: ageSeconds(parseServiceTime(completedAt) ?? parseServiceTime(createdAt), now),
  };
}

export function snapshotSummaryOf(s: BackupLike, now: number): SnapshotSummary {
  const completedAt = str(s.completed_at);
  const startedAt = str(s.started_at);
  return {
    id: typeof s.id === 'number' || typeof s.id === 'string' ? s.id : null,
    status: str(s.status),
    started_at: startedAt,
    completed_at: completedAt,
    age_seconds: ageSeconds(parseServiceTime(completedAt) ?? parseServiceTime(startedAt), now),
  };
}

/** Snapshot statuses of the interface (droplet/volume and provider snapshots), in the order metrics list them (src/backups/status.ts). */
export const SNAPSHOT_STATUSES = SNAPSHOT_STATUSES_BY_OUTCOME;

/** Hours between snapshots from a frequency as the service sends it (24, "24", "h24"); undefined when unreadable. */
export function frequencyHours(frequency: string | number | null | undefined): number | undefined {
  const n = typeof frequency === 'number' ? frequency : Number(/^\s*h?(\d+(?:\.\d+)?)\s*$/i.exec(String(frequency ?? ''))?.[1] ?? NaN);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * The health of something snapshotted on a schedule (a droplet, a volume, a
 * snapshot resource), judged like a job's: failing when its newest finished
 * snapshot failed or expired; stale when its newest completed snapshot is
 * older than the frequency plus a grace (25%, at least 2h; 26h when the
 * frequency is unknown); unknown when it has no completed snapshot yet (none,
 * or the first still running); healthy otherwise. A paused droplet or volume
 * takes no snapshots: it goes stale like any other.
 */
export function snapshotHealth(
  s: { newest: SnapshotSummary | null; last_completed: SnapshotSummary | null },
  hours: number | undefined,
): { health: Health; max_age_seconds: number; within_max_age: boolean } {
  const maxAgeMs = hours !== undefined ? allowedAge(hours * 3_600_000) : DEFAULT_MAX_AGE_MS;
  const max_age_seconds = Math.round(maxAgeMs / 1000);
  const age = s.last_completed?.age_seconds ?? null;
  const within_max_age = age !== null && age <= max_age_seconds;
  const newest = s.newest?.status ?? null;
  let health: Health;
  if (newest !== null && isFailure(newest) && newest !== 'completed_with_errors') health = 'failing';
  else if (!s.last_completed) health = 'unknown';
  else health = within_max_age ? 'healthy' : 'stale';
  return { health, max_age_seconds, within_max_age };
}

export interface JudgeInput {
  /** The newest backups, newest first (a page of the backups list). */
  recent: readonly BackupLike[];
  /** The newest successful backup when it is not among `recent` (looked up separately). */
  lastSuccess?: BackupLike | undefined;
  /** The job's created_at, for the grace before its first backup. */
  jobCreatedAt?: unknown;
  maxAgeMs: number;
  allowErrors: boolean;
  now: number;
}

export interface Judgement {
  newest: BackupSummary | null;
  last_completed: BackupSummary | null;
  recent: string[];
  health: Health;
  within_max_age: boolean;
}

/**
 * failing: the newest finished backup failed (or expired, or completed with
 * errors unless they are allowed); otherwise healthy when the newest
 * successful one is younger than the max age; unknown when there is none yet
 * and the job itself is younger than the max age (it may not have run); else stale.
 * within_max_age is --check's question alone: a fresh success, or a new job.
 */
export function judge(input: JudgeInput): Judgement {
  const { allowErrors, now, maxAgeMs } = input;
  const recent = newestFirst(input.recent, 'created_at');
  const newest = recent[0];
  const plausible = (b: BackupLike | undefined) => b !== undefined && !inFuture(whenOf(b), now);
  const success = recent.find((b) => isSuccess(str(b.status), allowErrors) && plausible(b)) ?? (plausible(input.lastSuccess) ? input.lastSuccess : undefined);
  const lastCompleted = success ? backupSummaryOf(success, now) : null;
  const finished = recent.find((b) => !isInProgress(str(b.status)));
  const fresh = lastCompleted?.age_seconds != null && lastCompleted.age_seconds * 1000 <= maxAgeMs;
  const created = parseServiceTime(input.jobCreatedAt);
  const newJob = !lastCompleted && created !== undefined && !inFuture(created, now) && now - created < maxAgeMs;
  let health: Health;
  if (finished && isFailure(str(finished.status), allowErrors)) health = 'failing';
  else if (fresh) health = 'healthy';
  else if (newJob) health = 'unknown';
  else health = 'stale';
  return {
    newest: newest ? backupSummaryOf(newest, now) : null,
    last_completed: lastCompleted,
    recent: recent.slice(0, RECENT_WINDOW).map((b) => str(b.status) ?? 'unknown'),
    health,
    within_max_age: fresh || newJob,
  };
}

const HEALTH_RANK: Record<Health, number> = { failing: 0, stale: 1, unknown: 2, healthy: 3 };

/** Worst first, then by name, then id: the order of the table and the document. */
export function compareJobs(a: JobStatus, b: JobStatus): number {
  return (
    HEALTH_RANK[a.health] - HEALTH_RANK[b.health] ||
    (a.name ?? '').localeCompare(b.name ?? '') ||
    a.id.localeCompare(b.id)
  );
}

// ---------------------------------------------------------------------------
// --max-age

export interface MaxAgeRules {
  /** The bare `--max-age 26h` (the last one given); undefined when none was given (each job's schedule decides). */
  givenMs?: number;
  /** When a job's schedule cannot tell (no readable active schedule): 26h. */
  fallbackMs: number;
  /** `--max-age <job>=48h`, by job id or name, in the order given (a later one wins). */
  perJob: Array<{ job: string; ms: number; text: string }>;
}

/**
 * Reads the --max-age values: `26h` for every job, `<job>=48h` for one (by id
 * or name; the last `=` splits, so names may hold one). Throws `bad(value)`'s
 * error on a value that is not a duration.
 */
export function parseMaxAges(
  values: readonly string[],
  parseDuration: (text: string) => number | undefined,
  bad: (value: string, reason: string) => Error,
): MaxAgeRules {
  const rules: MaxAgeRules = { fallbackMs: DEFAULT_MAX_AGE_MS, perJob: [] };
  for (const value of values) {
    const cut = value.lastIndexOf('=');
    const job = cut === -1 ? undefined : value.slice(0, cut).trim();
    const text = (cut === -1 ? value : value.slice(cut + 1)).trim();
    if (job === '') throw bad(value, 'the job before "=" is empty');
    const ms = parseDuration(text);
    if (ms === undefined || ms <= 0) throw bad(value, 'expected a duration such as 26h, 2d or 90m, or <job>=<duration>');
    if (job === undefined) rules.givenMs = ms;
    else rules.perJob.push({ job, ms, text });
  }
  return rules;
}

/**
 * A job's max age: `--max-age <job>=...`, else the bare `--max-age`, else its schedule's interval plus a
 * grace (`intervalMs`, from scheduleInterval), else 26h. --max-age decides staleness only: a job whose
 * newest run failed is failing whatever it says.
 */
export function maxAgeFor(rules: MaxAgeRules, job: { id: string; name?: string | null }, intervalMs?: number): { ms: number; from: 'flag' | 'schedule' | 'default' } {
  let flag = rules.givenMs;
  for (const rule of rules.perJob) if (rule.job === job.id || rule.job === job.name) flag = rule.ms;
  if (flag !== undefined) return { ms: flag, from: 'flag' };
  if (intervalMs !== undefined) return { ms: allowedAge(intervalMs), from: 'schedule' };
  return { ms: rules.fallbackMs, from: 'default' };
}

// durationText moved to src/util/duration.ts (status and report both write durations).
