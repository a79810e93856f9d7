// What the assurance plans (src/ascode/assurance.ts) ask of the marks (src/state/marks.ts): which
// tests are due, in which order, and how well each job is covered (docs/assurance.md).
//
// A test (a job and a kind: verify or restore_test) is due when no conclusive attempt of that kind
// on any of the job's backups ended within the plan's window (verify_every, restore_test_every). Due
// tests run in this order: never tested, then the oldest proof first, then the ones whose latest
// attempt failed. A not-tested attempt (backupctl could not run it) proves nothing: still due.
import { createHash } from 'node:crypto';
import type { AssurancePlan, JobPlan } from './assurance.js';
import type { Mark, MarkKind, MarkedBackup } from '../state/marks.js';

export interface DueTest {
  job_id: string;
  job: string;
  kind: MarkKind;
  windowMs: number;
  plan: AssurancePlan;
  /** 0 never tested, 1 the latest attempt passed (long ago), 2 the latest attempt did not pass. */
  order: 0 | 1 | 2;
  /** The latest conclusive attempt, when there is one. */
  last: { backup_id: string; mark: Mark } | null;
}

const PASSING: Record<MarkKind, readonly string[]> = { verify: ['passed'], restore_test: ['passed', 'structure-only'] };

/** The latest conclusive attempt of a kind over a job's backups. */
export function latestConclusive(backups: readonly MarkedBackup[], kind: MarkKind): { backup_id: string; mark: Mark } | null {
  let best: { backup_id: string; mark: Mark } | null = null;
  for (const b of backups) {
    const m = b[kind]?.conclusive;
    if (m && (!best || m.at > best.mark.at)) best = { backup_id: b.backup_id, mark: m };
  }
  return best;
}

/** The kinds a plan asks for, with their windows. */
export function testsOf(plan: AssurancePlan): Array<{ kind: MarkKind; windowMs: number }> {
  const out: Array<{ kind: MarkKind; windowMs: number }> = [];
  if (plan.verifyEveryMs) out.push({ kind: 'verify', windowMs: plan.verifyEveryMs });
  if (plan.restoreTestEveryMs) out.push({ kind: 'restore_test', windowMs: plan.restoreTestEveryMs });
  return out;
}

/** Every due test of the plans, in the order they run. */
export function dueTests(plans: readonly JobPlan[], marksOf: (jobId: string) => readonly MarkedBackup[], now: number): DueTest[] {
  const due: DueTest[] = [];
  for (const p of plans) {
    const marks = marksOf(p.job_id);
    for (const t of testsOf(p.plan)) {
      const last = latestConclusive(marks, t.kind);
      if (last && Date.parse(last.mark.at) > now - t.windowMs) continue;
      const order = !last ? 0 : PASSING[t.kind].includes(last.mark.state) ? 1 : 2;
      due.push({ job_id: p.job_id, job: p.job, kind: t.kind, windowMs: t.windowMs, plan: p.plan, order, last });
    }
  }
  return due.sort((a, b) => a.order - b.order || (a.last?.mark.at ?? '').localeCompare(b.last?.mark.at ?? '') || a.job.localeCompare(b.job) || a.kind.localeCompare(b.kind));
}

/** The shard (0 .. n-1) of a test: a hash of the job id and kind, the same on every machine. */
export function shardOf(jobId: string, kind: MarkKind, n: number): number {
  return createHash('sha256').update(`${jobId}\0${kind}`).digest().readUInt32BE(0) % n;
}

/** `--shard i/n` (1-based i) checked; undefined when not given. */
export function parseShard(text: string | undefined): { index: number; count: number } | undefined | Error {
  if (text === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return new Error(`--shard ${JSON.stringify(text)}: write it as i/n, e.g. 1/4 (i from 1 to n)`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) return new Error(`--shard ${text}: i must be from 1 to n`);
  return { index, count };
}

export const COVERAGE_STATES = ['covered', 'slow', 'due', 'failing', 'unchecked', 'not-validated'] as const;
export type CoverageState = (typeof COVERAGE_STATES)[number];

export interface Coverage {
  job: string;
  job_id: string;
  selector: string;
  kind: MarkKind;
  window: string;
  /**
   * covered: a passing attempt within the window (the RTO met, every validation of the plan held); failing: the
   * latest attempt failed; unchecked: it checked only size and hash (never passing); due: none within the window;
   * slow: passed over the RTO; not-validated: a restore test passed without running every validation of the plan.
   */
  state: CoverageState;
  backup_id: string | null;
  at: string | null;
  result: string | null;
  total_seconds: number | null;
  rto_met: boolean | null;
}

/** How each job's plan is met by the marks: one row per job and kind. */
export function coverage(plans: readonly JobPlan[], marksOf: (jobId: string) => readonly MarkedBackup[], now: number): Coverage[] {
  const rows: Coverage[] = [];
  for (const p of plans) {
    for (const t of testsOf(p.plan)) {
      const last = latestConclusive(marksOf(p.job_id), t.kind);
      const within = last !== null && Date.parse(last.mark.at) > now - t.windowMs;
      const passing = last !== null && PASSING[t.kind].includes(last.mark.state);
      const seconds = last?.mark.total_seconds ?? null;
      // A passing test that measured no time (structure-only) does not meet a budget; a failed one without a time was not measured.
      const rtoMet = t.kind === 'restore_test' && p.plan.rtoMs !== null && last && (passing || seconds !== null) ? seconds !== null && seconds * 1000 <= p.plan.rtoMs : null;
      let state: CoverageState = last && !passing ? (last.mark.state === 'unchecked' ? 'unchecked' : 'failing') : !within ? 'due' : rtoMet === false ? 'slow' : 'covered';
      // One judgement for assure status, its --check and metrics, and report's evidence: a plan's validation not run is not proven.
      if (state === 'covered' && t.kind === 'restore_test' && validationsHeld(p.plan, last?.mark ?? null).some((v) => v.held !== true)) state = 'not-validated';
      rows.push({
        job: p.job,
        job_id: p.job_id,
        selector: p.plan.selector,
        kind: t.kind,
        window: (t.kind === 'verify' ? p.plan.entry.verify_every : p.plan.entry.restore_test_every) ?? '',
        state,
        backup_id: last?.backup_id ?? null,
        at: last?.mark.at ?? null,
        result: last?.mark.state ?? null,
        total_seconds: seconds,
        rto_met: rtoMet,
      });
    }
  }
  return rows;
}

const literal = (v: string) => (/^-?\d+(\.\d+)?$/.test(v) ? v : `'${v.replace(/'/g, "''")}'`);
const ident = (name: string) =>
  name
    .split('.')
    .map((p) => `"${p.replace(/"/g, '""')}"`)
    .join('.');

/**
 * The validations of a plan as restore-test --assert statements (each must give a true first cell),
 * run by the restore's own confined login: the text comes from the plan file, never from the backup.
 */
export function assertionsOf(plan: AssurancePlan): string[] {
  const out: string[] = [];
  for (const v of plan.validations) {
    if (v.sql !== undefined && v.expect !== undefined) {
      const m = /^\s*(=|==|!=|<>|>=|<=|>|<)?\s*(\S(?:.*\S)?)\s*$/.exec(v.expect)!;
      const op = m[1] === '==' || m[1] === undefined ? '=' : m[1];
      out.push(`SELECT (${v.sql.trim().replace(/;\s*$/, '')}) ${op} ${literal(m[2]!)}`);
    } else if (v.table_exists !== undefined) {
      const [schema, table] = v.table_exists.includes('.') ? v.table_exists.split('.', 2) : [null, v.table_exists];
      out.push(`SELECT count(*) > 0 FROM information_schema.tables WHERE table_name = ${literal(table!)}${schema ? ` AND table_schema = ${literal(schema)}` : ''}`);
    } else if (v.min_rows !== undefined) {
      out.push(`SELECT (SELECT count(*) FROM ${ident(v.min_rows.table)}) >= ${Number(v.min_rows.rows)}`);
    }
  }
  return out;
}

/** A plan's validation as the plan file writes it, for people (the evidence report). */
export function validationText(v: AssurancePlan['validations'][number]): string {
  if (v.sql !== undefined) return `${v.sql.trim()} ${/^\s*(=|==|!=|<>|>=|<=|>|<)/.test(v.expect ?? '') ? (v.expect ?? '').trim() : `= ${(v.expect ?? '').trim()}`}`;
  if (v.table_exists !== undefined) return `table ${v.table_exists} exists`;
  if (v.min_rows !== undefined) return `${v.min_rows.table} has at least ${v.min_rows.rows} rows`;
  return '?';
}

/**
 * What a restore test's mark says of each validation of the plan: held (its --assert statement gave
 * true), failed, or null when that test did not run it (run by hand without it, or stopped before).
 */
export function validationsHeld(plan: AssurancePlan, mark: Mark | null): Array<{ validation: string; held: boolean | null }> {
  const statements = assertionsOf(plan);
  return plan.validations.map((v, i) => {
    const found = mark?.assertions?.find((a) => a.sql === statements[i]);
    return { validation: validationText(v), held: found ? found.ok : null };
  });
}
