// The restore testing evidence of `report --assurance <backups file>` (issue 44): per job, what its
// assurance plan says must be proven how often, the latest verify and restore test that looked at the
// bytes (which backup, when, the engine, the time to restore against the RTO, each validation held or
// failed), and whether the plan is covered. Judged from the marks (src/state/marks.ts) by the same rules
// as `assure status` (src/ascode/coverage.ts), more strictly in two ways an auditor needs said: an
// unchecked result is its own state, never passing, and a restore test that did not run every
// validation of the plan does not cover it.
import * as z from 'zod/mini';
import type { JobPlan } from '../ascode/assurance.js';
import { planLine } from '../ascode/assurance.js';
import { COVERAGE_STATES, coverage, latestConclusive, testsOf, validationText, validationsHeld } from '../ascode/coverage.js';
import type { MarkedBackup } from '../state/marks.js';

const describe = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;

export const EVIDENCE_STATES = COVERAGE_STATES;

const testSchema = z.object({
  kind: z.enum(['verify', 'restore_test']),
  every: describe(z.string(), 'The plan\'s window: verify_every or restore_test_every'),
  covered: describe(z.boolean(), 'A passing test within the window, the RTO met and every validation held; anything else is not covered'),
  state: describe(
    z.enum(EVIDENCE_STATES),
    'covered; slow: passed within the window, over the RTO; due: no test within the window (never, or stale); failing: the latest test failed; ' +
      'unchecked: the latest test checked only size and hash (never passing); not-validated: a restore test that passed without running every validation of the plan',
  ),
  why: describe(z.string(), 'The state in words'),
  backup_id: describe(z.nullable(z.string()), 'The backup the latest test read'),
  backup_created_at: describe(z.nullable(z.string()), 'When that backup was made, ISO 8601 UTC (as the service said)'),
  tested_at: describe(z.nullable(z.string()), 'When the latest test that looked at the bytes ended, ISO 8601 UTC'),
  result: describe(z.nullable(z.string()), 'Its verdict: passed, unchecked, structure-only, failed'),
  reason: z.nullable(z.string()),
  engine: describe(z.nullable(z.string()), 'restore_test: the engine asked for (auto, server, local, embedded) or a --into database'),
  total_seconds: describe(z.nullable(z.number()), 'restore_test: the measured time to read and restore'),
  rto_seconds: describe(z.nullable(z.number()), 'restore_test: the plan\'s budget (rto); null when the plan has none'),
  rto_met: z.nullable(z.boolean()),
  assertions: describe(
    z.array(z.object({ validation: z.string(), held: describe(z.nullable(z.boolean()), 'true held, false failed, null not run by that test') })),
    'restore_test: each validation of the plan',
  ),
});

const jobSchema = z.object({
  job: z.string(),
  job_id: z.string(),
  selector: describe(z.string(), 'The key of the assurance section that gave the plan (a name or a glob)'),
  plan: describe(z.string(), 'The plan in words'),
  verify_every: z.nullable(z.string()),
  restore_test_every: z.nullable(z.string()),
  backup: z.enum(['latest', 'random']),
  within: describe(z.nullable(z.string()), 'backup: random: how far back'),
  engine: z.nullable(z.string()),
  rto: z.nullable(z.string()),
  validations: z.array(z.string()),
  covered: describe(z.boolean(), 'Every test of the plan covered'),
  tests: z.array(testSchema),
  backups: describe(
    z.array(
      z.object({
        backup_id: z.string(),
        created_at: z.nullable(z.string()),
        verify: z.nullable(z.object({ result: z.string(), at: z.string() })),
        restore_test: z.nullable(z.object({ result: z.string(), at: z.string(), total_seconds: z.nullable(z.number()), engine: z.nullable(z.string()) })),
      }),
    ),
    'Every backup of the job tested within the plan\'s longest window: the latest verify and restore test of each that looked at the bytes, newest backup first',
  ),
});

export const evidenceSchema = describe(
  z.object({
    plan_file: describe(z.string(), 'The backups file whose assurance section was judged (--assurance)'),
    judged_at: describe(z.string(), 'The moment the windows are counted back from (the report\'s generated_at), ISO 8601 UTC'),
    summary: z.object({
      jobs: describe(z.int(), 'Jobs with a plan'),
      covered: describe(z.int(), 'Of those, every test covered'),
      tests: z.int(),
      tests_covered: z.int(),
    }),
    jobs: describe(z.array(jobSchema), 'Jobs with a plan, by name'),
  }),
  'Restore testing evidence: what each job\'s assurance plan asks and what the marks prove (report --assurance)',
);

export type Evidence = z.infer<typeof evidenceSchema>;
export type EvidenceJob = z.infer<typeof jobSchema>;
export type EvidenceTest = z.infer<typeof testSchema>;

const KIND_WORDS = { verify: 'verify', restore_test: 'restore test' } as const;

/** The evidence of each job's plan from the marks of its backups, judged at `now`. */
export function buildEvidence(planFile: string, plans: readonly JobPlan[], marksOf: (jobId: string) => readonly MarkedBackup[], now: number): Evidence {
  const rows = coverage(plans, marksOf, now);
  const jobs: EvidenceJob[] = [];
  for (const p of [...plans].sort((a, b) => a.job.localeCompare(b.job) || a.job_id.localeCompare(b.job_id))) {
    const marks = marksOf(p.job_id);
    const e = p.plan.entry;
    const tests: EvidenceTest[] = testsOf(p.plan).map((t) => {
      const row = rows.find((r) => r.job_id === p.job_id && r.kind === t.kind)!;
      const last = latestConclusive(marks, t.kind);
      const mark = last?.mark ?? null;
      const restore = t.kind === 'restore_test';
      const assertions = restore ? validationsHeld(p.plan, mark) : [];
      const state: EvidenceTest['state'] = row.state;
      const every = row.window;
      const what = KIND_WORDS[t.kind];
      const when = mark ? `${mark.at.slice(0, 16).replace('T', ' ')} UTC` : '';
      const why = {
        covered: `${what} passed ${when}, within ${every}${row.rto_met ? ` and under the RTO of ${e.rto}` : ''}`,
        slow: `${what} passed ${when} but restored in ${row.total_seconds ?? '?'} s, over the RTO of ${e.rto}`,
        due: mark ? `the latest ${what} (${mark.state}, ${when}) is older than ${every}` : `never tested: no ${what} has looked at a backup`,
        failing: `the latest ${what} failed ${when}${mark?.reason ? `: ${mark.reason}` : ''}`,
        unchecked: `the latest ${what} (${when}) checked only size and hash${mark?.reason ? ` (${mark.reason})` : ''}: unchecked is never passing`,
        'not-validated': `the ${what} of ${when} passed without running every validation of the plan`,
      }[state];
      const created = last ? (marks.find((b) => b.backup_id === last.backup_id)?.created_at ?? null) : null;
      return {
        kind: t.kind,
        every,
        covered: state === 'covered',
        state,
        why,
        backup_id: last?.backup_id ?? null,
        backup_created_at: created,
        tested_at: mark?.at ?? null,
        result: mark?.state ?? null,
        reason: mark?.reason ?? null,
        engine: restore ? (mark?.engine ?? null) : null,
        total_seconds: restore ? (mark?.total_seconds ?? null) : null,
        rto_seconds: restore && p.plan.rtoMs !== null ? p.plan.rtoMs / 1000 : null,
        rto_met: row.rto_met,
        assertions,
      };
    });
    const longest = Math.max(0, ...testsOf(p.plan).map((t) => t.windowMs));
    const since = new Date(now - longest).toISOString();
    const conclusive = (b: MarkedBackup, k: 'verify' | 'restore_test') => b[k]?.conclusive ?? null;
    const backups = marks
      .filter((b) => [conclusive(b, 'verify'), conclusive(b, 'restore_test')].some((m) => m && m.at > since))
      .map((b) => {
        const v = conclusive(b, 'verify');
        const r = conclusive(b, 'restore_test');
        return {
          backup_id: b.backup_id,
          created_at: b.created_at,
          verify: v ? { result: v.state, at: v.at } : null,
          restore_test: r ? { result: r.state, at: r.at, total_seconds: r.total_seconds ?? null, engine: r.engine ?? null } : null,
        };
      })
      .sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? '') || a.backup_id.localeCompare(b.backup_id));
    jobs.push({
      job: p.job,
      job_id: p.job_id,
      selector: p.plan.selector,
      plan: planLine(p.plan),
      verify_every: e.verify_every ?? null,
      restore_test_every: e.restore_test_every ?? null,
      backup: p.plan.backup,
      within: p.plan.backup === 'random' ? (e.within ?? '30d') : null,
      // A --into URL written in the plan: its password never printed.
      engine: e.engine ? e.engine.replace(/:\/\/[^@/]*@/, '://***@') : null,
      rto: e.rto ?? null,
      validations: p.plan.validations.map(validationText),
      covered: tests.every((t) => t.covered),
      tests,
      backups,
    });
  }
  const all = jobs.flatMap((j) => j.tests);
  return {
    plan_file: planFile,
    judged_at: new Date(now).toISOString(),
    summary: { jobs: jobs.length, covered: jobs.filter((j) => j.covered).length, tests: all.length, tests_covered: all.filter((t) => t.covered).length },
    jobs,
  };
}
