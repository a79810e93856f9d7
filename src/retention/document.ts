// The forecast document of one job, droplet, volume or resource: the inputs
// echoed, each backup's verdict with its rule and predicted date, restic-like
// keep / expire / reasons lists, the optional simulation and the guard.
// Pure: the caller gives the clock, the runs and the proofs.
import { RETENTION_PERIODS, type Counts } from '../backups/retention.js';
import { forecast, simulate, type Run, type Verdict } from './keep-rules.js';
import type { Target } from './collect.js';
import type { Proof } from './proven.js';
import type { CleanBackup } from './clean.js';

export const ASSUMPTIONS = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7'] as const;

export interface BackupRow {
  id: string;
  created_at: string;
  status: string;
  tags: string[];
  action: Verdict['action'];
  rules: string[];
  reason: string;
  expires_at: string | null;
  expires_run: number | null;
  proven: { by: Proof['by']; at: string | null } | null;
}

export interface GuardResult {
  /** The newest backup that passed verify or restore-test, and when it is predicted to go. */
  proven: { id: string; by: Proof['by']; at: string | null; expires_at: string | null; expires_run: number | null } | null;
  /** The newest counted backup not proven (what to verify next), if newer than the proven one. */
  newest_unproven: { id: string; created_at: string } | null;
  /**
   * The last clean backup before the job's anomalous ones (backupctl anomalies, from the catalog), and when it is
   * predicted to go; null when the catalog flags no backup of the job. It fails the guard as the proven one does.
   */
  clean: { id: string; created_at: string; before: string; expires_at: string | null; expires_run: number | null; fails: boolean } | null;
  within_seconds: number;
  fails: boolean;
  message: string;
}

export interface ForecastDocument {
  generated_at: string;
  target: { kind: Target['kind']; id: string; name: string | null };
  inputs: {
    counts: Counts;
    counts_from: 'service' | 'what-if';
    service_counts: Counts;
    schedules: Array<{ cron: string; timezone: string; text: string }>;
    unreadable_schedules: string[];
    /** The periods with a count, whose tags the forecast reads. */
    tags_used: string[];
    runs_forecast: number;
    horizon_until: string;
    assumptions: string[];
  };
  backups: BackupRow[];
  keep: string[];
  expire: string[];
  not_counted: string[];
  reasons: Array<{ id: string; matches: string[] }>;
  next_run: { at: string; tags: string[]; expiring: string[] } | null;
  expires_next: { id: string; at: string } | null;
  simulation?: {
    until: string;
    days: Array<{ date: string; runs: Array<{ at: string; tags: string[]; made: string; expiring: string[] }> }>;
    remaining: string[];
  };
  guard?: GuardResult;
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

/** How far to forecast: long enough for the monthly count to turn over, at least 60 days, at most 800. */
export function horizonDays(counts: Counts, simulateDays = 0): number {
  const need = Math.max(60, 31 * (counts.monthly + 1), 7 * (counts.weekly + 1), counts.daily + 2, simulateDays + 1);
  return Math.min(800, need);
}

export interface DocumentOptions {
  now: number;
  counts: Counts;
  countsFrom: 'service' | 'what-if';
  runs: Run[];
  horizonUntil: number;
  simulateUntil?: number;
  /** Zone to group the simulation's days in. */
  zone: string;
  proofOf?: (b: Target['backups'][number]) => Proof | null;
  /** The last clean backup before anomalous ones (from the catalog), which the guard protects too. */
  lastClean?: CleanBackup | null;
  guardWithinMs?: number;
}

export function forecastDocument(t: Target, o: DocumentOptions): ForecastDocument {
  // No schedule known (a snapshot resource, whose schedule the service does not show back; a job without
  // one): no counts and no runs to forecast with, so nothing is said to expire.
  const verdicts = t.schedules.length || t.unreadable.length
    ? forecast({ now: o.now, backups: t.backups, counts: o.counts, runs: o.runs })
    : t.backups
        .filter((b) => b.created_at <= o.now)
        .sort((a, b) => b.created_at - a.created_at)
        .map((b) => ({ ...b, tags: [...b.tags], action: 'not-counted' as const, rules: [], reason: 'no schedule is known for it (the service shows none): nothing is forecast', expires_at: null, expires_run: null }));
  const byId = new Map(t.backups.map((b) => [b.id, b]));
  const rows: BackupRow[] = verdicts.map((v) => {
    const proof = o.proofOf?.(byId.get(v.id)!) ?? null;
    return {
      id: v.id,
      created_at: new Date(v.created_at).toISOString(),
      status: v.status,
      tags: v.tags,
      action: v.action,
      rules: v.rules,
      reason: v.reason,
      expires_at: iso(v.expires_at),
      expires_run: v.expires_run,
      proven: proof ? { by: proof.by, at: proof.at } : null,
    };
  });
  const counted = verdicts.filter((v) => v.action !== 'not-counted' && v.expires_at !== null);
  const soonest = counted.slice().sort((a, b) => a.expires_at! - b.expires_at! || a.created_at - b.created_at)[0];
  const next = o.runs[0];
  const doc: ForecastDocument = {
    generated_at: new Date(o.now).toISOString(),
    target: { kind: t.kind, id: t.id, name: t.name },
    inputs: {
      counts: o.counts,
      counts_from: o.countsFrom,
      service_counts: t.counts,
      schedules: t.schedules.map((s) => ({ cron: s.cron, timezone: s.timezone, text: s.text })),
      unreadable_schedules: t.unreadable,
      tags_used: RETENTION_PERIODS.filter((p) => o.counts[p] > 0),
      runs_forecast: o.runs.length,
      horizon_until: new Date(o.horizonUntil).toISOString(),
      assumptions: [...ASSUMPTIONS],
    },
    backups: rows,
    keep: rows.filter((r) => r.action === 'keep').map((r) => r.id),
    expire: rows.filter((r) => r.action === 'expire').map((r) => r.id),
    not_counted: rows.filter((r) => r.action === 'not-counted').map((r) => r.id),
    reasons: rows.filter((r) => r.action === 'keep').map((r) => ({ id: r.id, matches: r.rules })),
    next_run: next ? { at: new Date(next.at).toISOString(), tags: [...next.tags], expiring: rows.filter((r) => r.expires_run === 1).map((r) => r.id) } : null,
    expires_next: soonest ? { id: soonest.id, at: new Date(soonest.expires_at!).toISOString() } : null,
  };
  if (o.simulateUntil !== undefined) {
    const sim = simulate({ now: o.now, backups: t.backups, counts: o.counts, runs: o.runs }, o.simulateUntil);
    const days = new Map<string, Array<{ at: string; tags: string[]; made: string; expiring: string[] }>>();
    for (const r of sim.runs) {
      const date = localDay(r.at, o.zone);
      const list = days.get(date) ?? [];
      list.push({ at: new Date(r.at).toISOString(), tags: r.tags, made: `run:${r.run}`, expiring: r.expiring });
      days.set(date, list);
    }
    doc.simulation = { until: new Date(o.simulateUntil).toISOString(), days: [...days.entries()].map(([date, runs]) => ({ date, runs })), remaining: sim.remaining };
  }
  if (o.proofOf) doc.guard = guardOf(rows, o.now, o.guardWithinMs ?? 3 * 86_400_000, o.lastClean ?? null);
  return doc;
}

function localDay(at: number, zone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(at));
}

/**
 * The guard (A7): the newest proven backup must not be predicted to go within
 * `withinMs` of now; a newer proven backup would be the newest instead, so
 * "before a newer one has passed" is "within the window, while none newer has".
 */
export function guardOf(rows: readonly BackupRow[], now: number, withinMs: number, lastClean: CleanBackup | null = null): GuardResult {
  const proven = rows.find((r) => r.proven !== null); // rows are newest first
  const newestUnproven = rows.find((r) => r.action !== 'not-counted' && r.proven === null);
  const newer = newestUnproven && proven && newestUnproven.created_at > proven.created_at ? { id: newestUnproven.id, created_at: newestUnproven.created_at } : null;
  const within_seconds = Math.round(withinMs / 1000);
  const soon = (r: BackupRow) => r.expires_at !== null && Date.parse(r.expires_at) <= now + withinMs;
  const when = (r: BackupRow) => (r.expires_at ? `${r.expires_at}${r.expires_run ? ` (run ${r.expires_run})` : ''}` : 'beyond the forecast');
  // The last clean backup: its row when the service still holds it (a backup gone already is nothing to guard).
  const cleanRow = lastClean ? rows.find((r) => r.id === lastClean.id) : undefined;
  const clean = cleanRow && lastClean
    ? { id: cleanRow.id, created_at: cleanRow.created_at, before: lastClean.before.id, expires_at: cleanRow.expires_at, expires_run: cleanRow.expires_run, fails: soon(cleanRow) }
    : null;
  const cleanText = cleanRow && clean
    ? clean.fails
      ? `the last clean backup (backupctl anomalies), ${clean.id} (created ${clean.created_at}), is predicted to expire at ${when(cleanRow)}, and no newer backup is clean: ${clean.before} and the backups after it are anomalous`
      : `the last clean backup (backupctl anomalies), ${clean.id}, is predicted to expire at ${when(cleanRow)}`
    : null;
  if (!proven) {
    const nothing = 'no backup has passed verify or restore-test';
    return {
      proven: null,
      newest_unproven: newestUnproven ? { id: newestUnproven.id, created_at: newestUnproven.created_at } : null,
      clean,
      within_seconds,
      fails: clean?.fails ?? false,
      message: cleanText ? (clean!.fails ? `${cleanText}; ${nothing}` : `${nothing}; ${cleanText}`) : `${nothing}: nothing to guard`,
    };
  }
  const p = { id: proven.id, by: proven.proven!.by, at: proven.proven!.at, expires_at: proven.expires_at, expires_run: proven.expires_run };
  const fails = soon(proven);
  const provenText = fails
    ? `the newest backup that passed ${p.by}, ${p.id} (created ${proven.created_at}), is predicted to expire at ${when(proven)}` +
      (newer ? `, and the newer ${newer.id} (created ${newer.created_at}) has not passed verify or restore-test` : ', and no newer backup has passed verify or restore-test')
    : `the newest backup that passed ${p.by}, ${p.id}, is predicted to expire at ${when(proven)}`;
  // What fails first.
  const message = cleanText ? (clean!.fails && !fails ? `${cleanText}; ${provenText}` : `${provenText}; ${cleanText}`) : provenText;
  return { proven: p, newest_unproven: newer, clean, within_seconds, fails: fails || (clean?.fails ?? false), message };
}
