// The report document (what `report --json` prints and `schema report`
// describes). Every renderer (table, Markdown, HTML) reads this document and
// nothing else, so what a chart shows is what the JSON says.
//
// In short:
//   { generated_at, window: {since, until, grace_seconds}, summary: Totals,
//     jobs: [Entry], droplets: [Entry]|null, volumes: [Entry]|null, resources: [Entry]|null, notes: [text] }
//   Entry = { kind, id, name, timezone, schedules: [{id, text, timezone, status, expected}], computable,
//             expected, pending, completed, completed_with_errors, failed, expired, in_progress, missed,
//             success_rate, unscheduled, unscheduled_manual, missed_runs: [iso], runs: [Run],
//             unscheduled_backups: [Attempt], duration: {count, median_seconds, p95_seconds, points},
//             size: {bytes, known, of}, last_success: Attempt|null, notes: [text] }
import * as z from 'zod/mini';

const describe = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;
const nullableString = (text: string) => describe(z.nullable(z.string()), text);
const count = (text: string) => describe(z.int(), text);
const idSchema = z.nullable(z.union([z.string(), z.number()]));

/** What happened to one expected run. */
export const RUN_OUTCOMES = ['completed', 'completed_with_errors', 'failed', 'expired', 'in_progress', 'missed', 'pending'] as const;
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
    outcome: describe(z.enum(RUN_OUTCOMES), 'The status of the backup that fulfilled it; missed when none did; pending when its grace has not ended yet'),
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
        timezone: z.string(),
        status: z.nullable(z.string()),
        expected: describe(z.nullable(z.int()), 'Runs it expected in the window; null when they cannot be computed'),
      }),
    ),
    'Where the expected runs come from',
  ),
  computable: describe(z.boolean(), 'Whether expected runs could be computed; when false, the counts below are of the backups in the window by status'),
  expected: describe(z.nullable(z.int()), 'Expected runs in the window (pending included)'),
  pending: count('Expected runs with no backup yet whose grace has not ended'),
  completed: count('Expected runs fulfilled by a completed backup (all completed backups when not computable)'),
  completed_with_errors: count('Likewise, completed_with_errors'),
  failed: count('Likewise, failed'),
  expired: count('Likewise, expired'),
  in_progress: count('Likewise, still pending or running'),
  missed: describe(z.nullable(z.int()), 'Expected runs no backup fulfilled; null when not computable'),
  success_rate: describe(
    z.nullable(z.number()),
    'completed / (expected - pending - in_progress), 0..1; when not computable, completed / finished backups; null when nothing to divide by',
  ),
  unscheduled: count('Backups in the window that fulfilled no expected run (all of them when not computable)'),
  unscheduled_manual: count('Of those, the ones tagged manual'),
  missed_runs: describe(z.array(z.string()), 'When each missed run was expected, ISO 8601 UTC'),
  runs: describe(z.array(run), 'Every expected run, oldest first'),
  unscheduled_backups: z.array(attempt),
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
  unscheduled: z.int(),
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
  }),
  'backupctl report: expected runs against actual backups over a window',
);

export type ReportDocument = z.infer<typeof reportDocumentSchema>;
export type ReportEntry = z.infer<typeof entry>;
export type ReportRun = z.infer<typeof run>;
export type ReportAttempt = z.infer<typeof attempt>;
export type ReportTotals = z.infer<typeof totals>;
export type ReportSchedule = ReportEntry['schedules'][number];
export type EntryKind = (typeof ENTRY_KINDS)[number];
