// The shapes of the marks that status and report show for each job (src/fleet/marks.ts): its
// last verify and its last restore test. One schema for both documents (`schema status`,
// `schema report`); the types come from it.
import * as z from 'zod/mini';

const describe = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;

export const verifyMarkSchema = z.object({
  last_at: describe(z.string(), 'When `backupctl verify` last checked a backup of the job on this machine, ISO 8601 UTC'),
  verdict: describe(z.enum(['passed', 'failed']), 'passed when every file of that run verified; failed makes the job failing in status'),
  last_passed_at: describe(z.nullable(z.string()), 'The last verify in which every file verified'),
});

export const restoreMarkSchema = z.object({
  last_at: describe(z.string(), 'When the last restore test ended, ISO 8601 UTC'),
  verdict: z.enum(['passed', 'failed']),
  backup_id: z.string(),
  total_seconds: describe(z.number(), 'Time to read and restore: the recovery time to plan for'),
  restore_seconds: z.number(),
  rows: z.int(),
  engine: z.nullable(z.string()),
  reason: describe(z.nullable(z.string()), 'The first failure of a failed test'),
  last_passed_at: describe(z.nullable(z.string()), 'When a restore test of the job last passed'),
  last_passed_total_seconds: describe(z.nullable(z.number()), 'Its time to restore (read and restore)'),
});

export type VerifyMark = z.infer<typeof verifyMarkSchema>;
export type RestoreMark = z.infer<typeof restoreMarkSchema>;
