// The retention forecast: which backups (or snapshots) the service keeps, by
// which rule, and at which scheduled run each is predicted to go. Pure and
// deterministic: backups, counts and the schedule's future runs in, verdicts
// out; no clock, no I/O. docs/retention.md writes the same model in words,
// with each uncertain rule as a named assumption (A1..A7, cited below).

import { RETENTION_PERIODS, type Counts, type Period } from '../backups/retention.js';
import { isSuccess } from '../backups/status.js';

export interface ModelBackup {
  id: string;
  /** Epoch ms. */
  created_at: number;
  status: string;
  /** Tags set on the backup: manual, hourly, daily, weekly, monthly (unknown ones ignored). */
  tags: readonly string[];
}

/** One future scheduled run: when, and the period tags its backup will carry (A5). */
export interface Run {
  at: number;
  tags: readonly Period[];
}

export interface ForecastInput {
  /** The instant of the forecast, epoch ms: backups created after it are ignored; runs must be after it. */
  now: number;
  backups: readonly ModelBackup[];
  counts: Counts;
  /** Future runs, oldest first, all after `now`. */
  runs: readonly Run[];
}

export type Action = 'keep' | 'expire' | 'not-counted';

export interface Verdict {
  id: string;
  created_at: number;
  status: string;
  tags: string[];
  /** keep: a rule keeps it now; expire: no rule does, it goes at the next run; not-counted: manual, failed, running, expired. */
  action: Action;
  /** The rules that keep it now, newest first within a period: "daily #3", "weekly #1". */
  rules: string[];
  /** Why it is kept, goes, or is not counted, in words. */
  reason: string;
  /** The run predicted to push it out (epoch ms), or null: not counted, or not within the runs given. */
  expires_at: number | null;
  /** That run's place among the future runs: 1 = the next run. */
  expires_run: number | null;
}

/** A1/A2/A3: a backup is counted when it completed (with errors or not: A3) and is not manual. */
export function isCounted(b: Pick<ModelBackup, 'status' | 'tags'>): boolean {
  return isSuccess(b.status, true) && !b.tags.includes('manual');
}

/** Newest first; equal times by id, so the order never depends on the input's. */
function newestFirst(a: { created_at: number; id: string }, b: { created_at: number; id: string }): number {
  return b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

interface Entry {
  id: string;
  created_at: number;
  tags: readonly string[];
  /** Index of the run that made it (future entries), or -1 for a backup that exists. */
  run: number;
}

/**
 * The forecast. For each period P with a count N > 0, the counted backups tagged P
 * (those that exist, then the future runs' backups, A4) form a queue: the one at
 * place j is pushed out when the one at place j + N is made (A1). A backup is
 * kept while any of its periods keeps it; it goes at the latest of those runs.
 * One no period keeps now goes at the next run, when the service next applies
 * retention (A6).
 */
export function forecast(input: ForecastInput): Verdict[] {
  const existing = input.backups.filter((b) => b.created_at <= input.now);
  const counted = existing.filter(isCounted).sort(newestFirst).reverse();
  const entries: Entry[] = [
    ...counted.map((b) => ({ id: b.id, created_at: b.created_at, tags: b.tags, run: -1 })),
    ...input.runs.map((r, i) => ({ id: `run:${i + 1}`, created_at: r.at, tags: r.tags, run: i })),
  ];
  const verdictOf = entryVerdicts(entries, input);
  return existing
    .slice()
    .sort(newestFirst)
    .map((b): Verdict => {
      const base = { id: b.id, created_at: b.created_at, status: b.status, tags: b.tags.filter(isTagName) };
      if (!isCounted(b)) {
        const reason = b.tags.includes('manual')
          ? 'manual: not counted, retention never removes it'
          : `${b.status}: not counted (only completed backups take a place)`;
        return { ...base, action: 'not-counted', rules: [], reason, expires_at: null, expires_run: null };
      }
      const v = verdictOf.get(b.id)!;
      return { ...base, ...v };
    });
}

type EntryVerdict = Pick<Verdict, 'action' | 'rules' | 'reason' | 'expires_at' | 'expires_run'>;

function isTagName(t: string): boolean {
  return t === 'manual' || (RETENTION_PERIODS as readonly string[]).includes(t);
}

/** Every entry's verdict; entries are oldest first. */
function entryVerdicts(entries: readonly Entry[], input: ForecastInput): Map<string, EntryVerdict> {
  // Place of each entry in each period's queue (oldest first), and the queues.
  const queues = new Map<Period, Entry[]>();
  for (const p of RETENTION_PERIODS) queues.set(p, entries.filter((e) => e.tags.includes(p)));
  const out = new Map<string, EntryVerdict>();
  const next = input.runs[0];
  for (const e of entries) {
    if (e.run >= 0) continue;
    const rules: string[] = [];
    const beyond: string[] = [];
    let latest: { run: number; period: Period } | null | undefined; // null: beyond the runs given
    for (const p of RETENTION_PERIODS) {
      if (!e.tags.includes(p)) continue;
      const n = input.counts[p];
      const queue = queues.get(p)!;
      const j = queue.indexOf(e);
      const existingNewer = queue.slice(j + 1).filter((x) => x.run < 0).length;
      const rank = existingNewer + 1;
      if (n <= 0 || rank > n) {
        beyond.push(n <= 0 ? `${p} keeps none (${p} 0)` : `beyond ${p} ${n} (#${rank})`);
        continue;
      }
      rules.push(`${p} #${rank}`);
      const pusher = queue[j + n];
      if (latest === null) continue;
      if (!pusher) latest = null;
      else if (latest === undefined || pusher.run > latest.run) latest = { run: pusher.run, period: p };
    }
    if (!rules.length) {
      const why = beyond.length ? beyond.join(', ') : 'no period tag';
      out.set(e.id, {
        action: 'expire',
        rules: [],
        reason: next ? `${why}: goes at the next run` : `${why}: goes when the service next applies retention`,
        expires_at: next ? next.at : null,
        expires_run: next ? 1 : null,
      });
      continue;
    }
    if (!latest) {
      out.set(e.id, { action: 'keep', rules, reason: `kept by ${rules.join(', ')} beyond the runs forecast`, expires_at: null, expires_run: null });
      continue;
    }
    const run = input.runs[latest.run]!;
    out.set(e.id, {
      action: 'keep',
      rules,
      reason: `kept by ${rules.join(', ')}; pushed out of ${latest.period} by run ${latest.run + 1}`,
      expires_at: run.at,
      expires_run: latest.run + 1,
    });
  }
  return out;
}

/** What a simulation adds: each future run's own backup and when it goes, and the state at an instant. */
export interface SimulatedRun {
  run: number;
  at: number;
  tags: Period[];
  /** When this run's own backup is predicted to go (null: beyond the runs given). */
  expires_at: number | null;
  /** The backups (existing ids, or `run:<n>` for a future run's) that go at this run. */
  expiring: string[];
}

/**
 * The runs up to `until` with what each makes and removes: existing backups
 * as forecast() says, and each run's own backup treated the same way (A4:
 * every future run is assumed to complete).
 */
export function simulate(input: ForecastInput, until: number): { runs: SimulatedRun[]; remaining: string[] } {
  const verdicts = forecast(input);
  // Future entries, by running the forecast as if each run had happened: the run's backup is an existing one then.
  const futureExpiry = futureExpiries(input);
  const runs: SimulatedRun[] = [];
  input.runs.forEach((r, i) => {
    if (r.at > until) return;
    const expiring = [
      ...verdicts.filter((v) => v.expires_run === i + 1).map((v) => v.id),
      ...futureExpiry.filter((f) => f.expires_run === i + 1).map((f) => `run:${f.run}`),
    ];
    const own = futureExpiry[i]!;
    runs.push({ run: i + 1, at: r.at, tags: [...r.tags], expires_at: own.expires_at, expiring });
  });
  const gone = new Set(runs.flatMap((r) => r.expiring));
  const remaining = [
    ...verdicts.filter((v) => !gone.has(v.id)).map((v) => v.id),
    ...runs.map((r) => `run:${r.run}`).filter((id) => !gone.has(id)),
  ];
  return { runs, remaining };
}

/** For each future run, when its own backup goes: the forecast's queue rule applied to the run's backup. */
function futureExpiries(input: ForecastInput): Array<{ run: number; expires_at: number | null; expires_run: number | null }> {
  return input.runs.map((r, i) => {
    let latest = -1;
    let beyondRuns = false;
    let kept = false;
    for (const p of RETENTION_PERIODS) {
      const n = input.counts[p];
      if (!r.tags.includes(p) || n <= 0) continue;
      kept = true;
      // The n-th later run tagged p pushes it out.
      let seen = 0;
      let k = i + 1;
      for (; k < input.runs.length; k++) if (input.runs[k]!.tags.includes(p) && ++seen === n) break;
      if (k >= input.runs.length) beyondRuns = true;
      else latest = Math.max(latest, k);
    }
    // A run whose tags no count keeps is not removed by its own run, but by the next (A6).
    if (!kept) return { run: i + 1, expires_at: input.runs[i + 1]?.at ?? null, expires_run: input.runs[i + 1] ? i + 2 : null };
    if (beyondRuns) return { run: i + 1, expires_at: null, expires_run: null };
    return { run: i + 1, expires_at: input.runs[latest]!.at, expires_run: latest + 1 };
  });
}

/** Parses `daily=3,weekly=2` (--what-if): the counts it names over `base`. */
export function applyWhatIf(base: Counts, text: string): Counts | { error: string } {
  const out: Counts = { ...base };
  const parts = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (!parts.length) return { error: 'give period=count pairs, e.g. daily=3,weekly=2' };
  for (const part of parts) {
    const m = /^([a-z]+)\s*=\s*(\d{1,6})$/i.exec(part);
    if (!m) return { error: `"${part}" is not period=count (periods: ${RETENTION_PERIODS.join(', ')}; counts: whole numbers)` };
    const period = m[1]!.toLowerCase();
    if (!(RETENTION_PERIODS as readonly string[]).includes(period)) return { error: `"${m[1]}" is not a period (one of: ${RETENTION_PERIODS.join(', ')})` };
    out[period as Period] = Number(m[2]);
  }
  return out;
}
