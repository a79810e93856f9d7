// The shapes of the marks that status and report show for each job (src/fleet/marks.ts): the
// verify and the restore test of its newest completed backup (src/state/marks.ts keeps them per
// backup), and the warnings they give. One schema for both documents (`schema status`, `schema
// report`); the types come from it.
import * as z from 'zod/mini';
import { MARK_STATES } from '../state/marks.js';

const describe = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;

const STATE_TEXT =
  'passed: the content was read and checked (or restored and counted); unchecked: only size and hash; structure-only: parsed, not ' +
  'restored (mongodump); failed: the bytes or the data are bad; not-tested: backupctl could not do the test (network, store, service, ' +
  'scratch server, no engine): it never makes a job failing';

const markFields = {
  backup_id: describe(z.string(), 'The backup the mark belongs to'),
  of_newest: describe(
    z.boolean(),
    'true: the mark of the newest completed backup, which the health judges; false: the newest backup has no mark, and this is the latest mark of an older one, shown as such and never judged',
  ),
  state: describe(z.enum(MARK_STATES), STATE_TEXT),
  at: describe(z.string(), 'When the test ended on this machine, ISO 8601 UTC'),
  reason: describe(z.nullable(z.string()), 'Why: the first failure, what was not checked, or what kept the test from running'),
  exit_code: describe(z.int(), 'The exit code that run gave'),
  last_attempt: describe(
    z.nullable(z.object({ state: z.enum(MARK_STATES), at: z.string(), reason: z.nullable(z.string()) })),
    'A later attempt that could not test the backup (not-tested), when the state above is from an earlier one that did; else null',
  ),
};

export const verifyMarkSchema = z.object(markFields);

export const restoreMarkSchema = z.object({
  ...markFields,
  total_seconds: describe(z.nullable(z.number()), 'Time to read and restore: the recovery time to plan for (null when nothing was restored)'),
  rows: describe(z.nullable(z.int()), 'Rows (documents) restored or parsed'),
  tables: describe(z.nullable(z.int()), 'Tables (collections) restored or parsed'),
  engine: z.nullable(z.string()),
});

/** What status shows as a warning of a job: never failing alone; `status --check --strict` fails on them. */
export const WARNING_KINDS = ['unchecked', 'not-tested', 'not-tested-too-long', 'anomaly'] as const;

export const warningSchema = z.object({
  kind: describe(
    z.enum(WARNING_KINDS),
    'unchecked: a test of the newest backup checked only size and hash; not-tested: the latest test of the newest backup could not run; ' +
      'not-tested-too-long: every test of the job for longer than its max age could not run; anomaly: a backup of the last 30 days with a finding of ' +
      'backupctl anomalies not acknowledged (from the catalog)',
  ),
  text: z.string(),
});

export type VerifyMark = z.infer<typeof verifyMarkSchema>;
export type RestoreMark = z.infer<typeof restoreMarkSchema>;
export type Warning = z.infer<typeof warningSchema>;
