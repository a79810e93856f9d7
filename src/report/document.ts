// The report document (what `report --json` prints and `schema report`
// describes). Every renderer (table, Markdown, HTML) reads this document and
// nothing else, so what a chart shows is what the JSON says.
//
// In short:
//   { generated_at, window: {since, until, grace_seconds}, summary: Totals,
//     jobs: [Entry], droplets: [Entry]|null, volumes: [Entry]|null, resources: [Entry]|null, notes: [text] }
//   Entry = { kind, id, name, timezone, schedules: [{id, text, timezone, status, expected}], computable,
//             expected, pending, completed, completed_with_errors, failed, expired, in_progress, missed,
//             unknown, success_rate, unscheduled, unscheduled_manual, schedule_unknown, schedule_changed_at,
//             missed_runs: [iso], runs: [Run], unscheduled_backups: [Attempt], schedule_unknown_backups: [Attempt],
//             duration: {count, median_seconds, p95_seconds, points}, size: {bytes, known, of},
//             last_success: Attempt|null, verify: {...}|null, restore_test: {...}|null, anomalies: {...}|null, notes: [text] }
import * as z from 'zod/mini';
import { restoreMarkSchema, verifyMarkSchema } from '../fleet/marks-schema.js';
import { jobAnomaliesSchema } from '../fleet/anomalies.js';
import { evidenceSchema } from './evidence.js';

const describe = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;
const nullableString = (text: string) => describe(z.nullable(z.string()), text);
const count = (text: string) => describe(z.int(), text);
const idSchema = z.nullable(z.union([z.string(), z.number()]));

/** What happened to one expected run. */
export const RUN_OUTCOMES = ['completed', 'completed_with_errors', 'failed', 'expired', 'in_progress', 'missed', 'pending', 'unknown'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export const ENTRY_KINDS = ['job', 'droplet', 'volume', 'resource'] as const;

const attempt = describe(
  z.object({
    id: describe(idSchema, 'Backup or snapshot id'),
    status: nullableString('As the service sent it'),
    started_at: nullableString('ISO 8601 UTC (created_at when the record has no started_at)'),
    completed_at: nullableString('ISO 8601 UTC'),
    manual: describe(z.boolean(), 'Tagged manual'),
  }),
  'A backup (jobs) or snapshot (droplets, volumes, resources)',
);

const run = describe(
  z.object({
    expected_at: describe(z.string(), 'When the schedule said it would run, ISO 8601 UTC'),
    schedule_ids: describe(z.array(idSchema), 'The schedules that expected it (runs of several schedules at one instant are one run)'),
    outcome: describe(
      z.enum(RUN_OUTCOMES),
      'The status of the backup that fulfilled it; missed when none did; pending when its grace has not ended yet; ' +
        'unknown when none did and it was expected before the schedule changed (schedule_changed_at): the schedule then is not known, so it is not missed',
    ),
    backup_id: describe(idSchema, 'The backup or snapshot that fulfilled it'),
    started_at: nullableString('When that backup started, ISO 8601 UTC'),
  }),
  'One expected run',
);

const point = z.object({
  started_at: z.string(),
  seconds: describe(z.number(), 'completed_at - started_at'),
  status: z.nullable(z.string()),
});

const entry = z.object({
  kind: z.enum(ENTRY_KINDS),
  id: idSchema,
  name: z.nullable(z.string()),
  timezone: describe(z.string(), 'The time zone days are counted in (the first schedule\'s)'),
  schedules: describe(
    z.array(
      z.object({
        id: idSchema,
        text: describe(z.string(), 'The cron expression, or "every 24h from 03:00" for snapshot schedules'),
        words: describe(z.optional(z.nullable(z.string())), 'A job schedule in words with its time zone, as status writes it ("daily at 04:00 America/New_York"); null when unreadable or not a job\'s'),
        timezone: z.string(),
        status: z.nullable(z.string()),
        expected: describe(z.nullable(z.int()), 'Runs it expected in the window; null when they cannot be computed'),
      }),
    ),
    'Where the expected runs come from',
  ),
  computable: describe(z.boolean(), 'Whether expected runs could be computed; when false (schedule unknown), the counts below are of the backups in the window by status'),
  schedule_changed_at: describe(
    z.nullable(z.string()),
    'When the job (or its schedule) was last changed, ISO 8601 UTC, when that is inside the window or after it: the schedule before it is not known, ' +
      'so runs the current schedule expected before it are judged only where a backup fulfilled them (the others are unknown, never missed); null otherwise',
  ),
  expected: describe(z.nullable(z.int()), 'Expected runs in the window (pending included)'),
  pending: count('Expected runs with no backup yet whose grace has not ended'),
  completed: count('Expected runs fulfilled by a completed backup (all completed backups when not computable)'),
  completed_with_errors: count('Likewise, completed_with_errors'),
  failed: count('Likewise, failed'),
  expired: count('Likewise, expired'),
  in_progress: count('Likewise, still pending or running'),
  missed: describe(z.nullable(z.int()), 'Expected runs no backup fulfilled; null when not computable'),
  unknown: count('Expected runs before schedule_changed_at that no backup fulfilled: not missed, their schedule then is not known'),
  success_rate: describe(
    z.nullable(z.number()),
    'completed / (expected - pending - in_progress - unknown), 0..1; when not computable, completed / finished backups; null when nothing to divide by',
  ),
  unscheduled: count('Backups in the window outside a known schedule: they fulfilled no expected run (manual backups always; see schedule_unknown for the rest)'),
  unscheduled_manual: count('Of those, the ones tagged manual'),
  schedule_unknown: count(
    'Backups in the window, not manual, whose schedule is unknown: all of them when not computable, and those before schedule_changed_at that fulfilled no run of the current schedule',
  ),
  missed_runs: describe(z.array(z.string()), 'When each missed run was expected, ISO 8601 UTC'),
  runs: describe(z.array(run), 'Every expected run, oldest first'),
  unscheduled_backups: z.array(attempt),
  schedule_unknown_backups: describe(z.array(attempt), 'The backups counted in schedule_unknown'),
  duration: describe(
    z.object({
      count: count('Finished backups with both started_at and completed_at'),
      median_seconds: z.nullable(z.number()),
      p95_seconds: describe(z.nullable(z.number()), 'Nearest-rank 95th percentile'),
      points: describe(z.array(point), 'Every duration, by start'),
    }),
    'Durations of the finished backups started in the window (scheduled or not)',
  ),
  size: describe(
    z.object({
      bytes: describe(z.nullable(z.number()), 'Total of the sizes stated, in bytes; null when none is stated'),
      known: count('Backups whose size is stated (every file of a backup, or the snapshot\'s size)'),
      of: count('Completed backups in the window'),
    }),
    'Stored size of the completed backups in the window',
  ),
  last_success: describe(z.nullable(attempt), 'The newest completed backup, in the window or before it'),
  verify: describe(
    z.nullable(verifyMarkSchema),
    'The verify mark of the newest completed backup the report found (of_newest true), else the latest of an older backup, shown as such (of_newest false); from the marks in the state folder, of this service only; null when none (and for machines)',
  ),
  restore_test: describe(z.nullable(restoreMarkSchema), 'The restore-test mark, likewise (total_seconds: the time to restore of a passed test)'),
  anomalies: jobAnomaliesSchema,
  notes: describe(z.array(z.string()), 'What could not be computed, and why'),
});

const totals = z.object({
  entries: count('Jobs (or machines) counted'),
  computable: count('Of those, the ones whose expected runs could be computed'),
  expected: count('Expected runs of those that are computable'),
  completed: z.int(),
  completed_with_errors: z.int(),
  failed: z.int(),
  expired: z.int(),
  in_progress: z.int(),
  pending: z.int(),
  missed: z.int(),
  unknown: describe(z.int(), 'Expected runs before a schedule change that no backup fulfilled'),
  unscheduled: z.int(),
  schedule_unknown: describe(z.int(), 'Backups whose schedule is unknown'),
  success_rate: z.nullable(z.number()),
});

export const reportDocumentSchema = describe(
  z.object({
    generated_at: describe(z.string(), 'The moment the report was made, ISO 8601 UTC'),
    window: z.object({
      since: describe(z.string(), 'ISO 8601 UTC (--since)'),
      until: describe(z.string(), 'ISO 8601 UTC (--until)'),
      grace_seconds: describe(z.int(), 'A backup started within this of an expected run fulfils it (--grace)'),
    }),
    summary: describe(
      z.object({ jobs: totals, droplets: z.nullable(totals), volumes: z.nullable(totals), resources: z.nullable(totals) }),
      'Totals per section',
    ),
    jobs: describe(z.array(entry), 'Jobs by name'),
    droplets: describe(z.nullable(z.array(entry)), 'Droplets with a snapshot schedule; null when not read (--job, or the list failed)'),
    volumes: describe(z.nullable(z.array(entry)), 'Volumes likewise'),
    resources: describe(z.nullable(z.array(entry)), 'Snapshot resources with backups activated; null when not read'),
    notes: describe(z.array(z.string()), 'Rules of the report that apply to every entry'),
    check: describe(
      z.optional(z.nullable(
        z.object({
          max_missed: describe(z.int(), '--max-missed: a job with more missed runs breaks the check'),
          min_success: describe(z.nullable(z.number()), '--min-success as a fraction 0..1: a job with a lower success rate breaks the check; null when not given'),
          broken: describe(
            z.array(z.object({ id: idSchema, name: z.nullable(z.string()), reasons: z.array(z.string()) })),
            'The jobs that break a threshold (report --check exits 13 when there is one)',
          ),
        }),
      )),
      'The thresholds of --check and the jobs that break them; null without --check',
    ),
    assurance: describe(z.optional(z.nullable(evidenceSchema)), 'The restore testing evidence of the assurance plans of --assurance; null without it'),
  }),
  'backupctl report: expected runs against actual backups over a window',
);

/** The rules every entry follows, printed with the report so a reader of the file alone knows them. */
export const REPORT_RULES = [
  'Expected runs come from each schedule\'s cron expression in its time zone (croner), from the later of the window\'s start and the job\'s creation.',
  'A job schedule with a frequency (h24, h6, m30 ...) runs every frequency from run_offset hours after 00:00 of its time zone; its cron is used when it fires as often as the frequency says (it carries the minute), and where the two disagree (the published example: cron "0 * * * *" beside frequency 24) the frequency wins and the entry\'s notes say so.',
  'A wall-clock time skipped by a spring-forward change is expected at the first minute after the gap; a time repeated by a fall-back change is expected once.',
  'A backup started within the grace of an expected run (before or after it) fulfils it; manual backups fulfil none.',
  'A paused schedule (or machine) still expects its runs: its record does not say since when it is paused, so the runs since show as missed.',
  'A schedule edit does not rewrite history: the service keeps no past schedules, so runs the current schedule expected before the job was last changed (its updated_at) count only where a backup fulfilled them; the others are "unknown: schedule changed on <date>", never missed, and the backups before it that fit no run are of an unknown schedule.',
  'Where the service states no schedule (snapshot resources), the schedule is unknown: snapshots are counted by status, none is called unscheduled, no run is missed.',
  'Success rate: expected runs fulfilled by a completed backup, over the runs settled (not pending, in progress or unknown); completed with errors and expired are not successes.',
  'Droplet and volume snapshots are expected every frequency hours from run_offset hours after 00:00 of their time zone, each day anew.',
];

export type ReportDocument = z.infer<typeof reportDocumentSchema>;
export type ReportEntry = z.infer<typeof entry>;
export type ReportRun = z.infer<typeof run>;
export type ReportAttempt = z.infer<typeof attempt>;
export type ReportTotals = z.infer<typeof totals>;
export type ReportSchedule = ReportEntry['schedules'][number];
export type EntryKind = (typeof ENTRY_KINDS)[number];
