// Assurance plans as code (issue 44 §1, docs/assurance.md): the `assurance` section of the backups
// file says, per job or glob of job names, how often its backups must be verified and restore-tested,
// which backup (the latest, or one at random within a window), the engine, the restore-time budget and
// the validations of the restored data. It is local policy: `plan` shows it, `assure run` acts on it,
// nothing is sent to the service. A job takes the plan of its exact name, else the first glob (in file
// order) that matches it.
import { parseDuration } from '../util/time.js';
import { editDistance } from '../util/suggest.js';
import type { AssuranceEntry, BackupsFile, ValidationEntry } from './filespec.js';
import { pathText, type ParsedFile, type Problem } from './parse.js';

export const DEFAULT_WITHIN_MS = 30 * 86_400_000;

export interface AssurancePlan {
  /** The key of the file that gave it: a job name or a glob. */
  selector: string;
  verifyEveryMs: number | null;
  restoreTestEveryMs: number | null;
  backup: 'latest' | 'random';
  withinMs: number;
  engine: string | null;
  rtoMs: number | null;
  validations: ValidationEntry[];
  entry: AssuranceEntry;
}

export interface JobPlan {
  job_id: string;
  job: string;
  plan: AssurancePlan;
}

const isGlob = (s: string) => /[*?[]/.test(s);

/** A glob of job names (`*`, `?`, `[abc]`) as a regular expression of the whole name, case-sensitive. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        re += `[${glob.slice(i + 1, end).replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

function toPlan(selector: string, e: AssuranceEntry): AssurancePlan {
  const ms = (v: string | undefined) => (v === undefined ? null : (parseDuration(v) ?? null));
  return {
    selector,
    verifyEveryMs: ms(e.verify_every),
    restoreTestEveryMs: ms(e.restore_test_every),
    backup: e.backup ?? 'latest',
    withinMs: ms(e.within) ?? DEFAULT_WITHIN_MS,
    engine: e.engine ?? null,
    rtoMs: ms(e.rto),
    validations: e.validations ?? [],
    entry: e,
  };
}

/**
 * The plan of each job (by the service's jobs, and the file's own jobs section for names), and every
 * problem of the section: a name that is no job, a glob that matches none, a validation without its
 * other half, a plan that proves nothing.
 */
export function resolveAssurance(parsed: Pick<ParsedFile, 'file' | 'where'>, jobs: ReadonlyArray<{ id: string; name: string }>): { plans: JobPlan[]; problems: Problem[] } {
  const section = parsed.file.assurance ?? {};
  const problems: Problem[] = [];
  const problem = (parts: Array<string | number>, message: string) => {
    const at = pathText(parts);
    problems.push({ ...parsed.where(at), at, message });
  };
  const names = [...new Set([...jobs.map((j) => j.name), ...Object.keys((parsed.file as BackupsFile).jobs ?? {})])];
  for (const [selector, e] of Object.entries(section)) {
    const parts = ['assurance', selector];
    if (isGlob(selector)) {
      const re = globToRegExp(selector);
      if (!names.some((n) => re.test(n))) problem(parts, `the glob "${selector}" matches no job`);
    } else if (!names.includes(selector) && !jobs.some((j) => j.id === selector)) {
      const near = names.map((n) => ({ n, d: editDistance(selector.toLowerCase(), n.toLowerCase()) })).sort((a, b) => a.d - b.d)[0];
      problem(parts, `unknown job "${selector}"${near && near.d <= Math.max(2, Math.floor(selector.length / 3)) ? `: did you mean "${near.n}"?` : ''}`);
    }
    if (e.verify_every === undefined && e.restore_test_every === undefined) problem(parts, 'give verify_every or restore_test_every: a plan that tests nothing proves nothing');
    if (e.validations?.length && e.restore_test_every === undefined) problem([...parts, 'validations'], 'validations check restored data: give restore_test_every');
    if (e.rto !== undefined && e.restore_test_every === undefined) problem([...parts, 'rto'], 'a restore-time budget is measured by a restore test: give restore_test_every');
    if (e.within !== undefined && (e.backup ?? 'latest') !== 'random') problem([...parts, 'within'], 'within is the window of backup: random');
    (e.validations ?? []).forEach((v, i) => {
      if (v.sql !== undefined && v.expect === undefined) problem([...parts, 'validations', i], '"expect" is required with sql');
      if (v.expect !== undefined && v.sql === undefined) problem([...parts, 'validations', i, 'expect'], 'expect goes with sql');
    });
  }
  const plans: JobPlan[] = [];
  const entries = Object.entries(section);
  for (const j of jobs) {
    const exact = entries.find(([k]) => !isGlob(k) && (k === j.name || k === j.id));
    const chosen = exact ?? entries.find(([k]) => isGlob(k) && globToRegExp(k).test(j.name));
    if (chosen) plans.push({ job_id: j.id, job: j.name, plan: toPlan(chosen[0], chosen[1]) });
  }
  return { plans, problems };
}

/** One line of a plan, as `plan` and `assure status` show it. */
export function planLine(p: AssurancePlan): string {
  const e = p.entry;
  const parts: string[] = [];
  if (e.verify_every) parts.push(`verify every ${e.verify_every}`);
  if (e.restore_test_every) parts.push(`restore-test every ${e.restore_test_every}`);
  parts.push(p.backup === 'random' ? `a random backup of the last ${e.within ?? '30d'}` : 'the latest backup');
  if (e.engine) parts.push(`engine ${e.engine.startsWith('${') ? e.engine : e.engine.replace(/:\/\/[^@/]*@/, '://***@')}`);
  if (e.rto) parts.push(`RTO ${e.rto}`);
  if (p.validations.length) parts.push(`${p.validations.length} validation${p.validations.length === 1 ? '' : 's'}`);
  return parts.join(', ');
}
