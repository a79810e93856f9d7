// status --all-profiles / --profiles a,b (issue 42.11): every profile's status document
// merged into one, each row marked with its profile, so the single-profile view (marks,
// droplets, volumes, resources, anomalies, relative times) is shown with a profile column.
import type { ProfileOutcome } from '../contract/context.js';
import { profilesNotRead, tagged } from '../fleet/profiles.js';
import type { StatusDocument } from './document.js';

export interface MergedStatus {
  doc: StatusDocument;
  /** Profiles whose status could not be read at all (no document): each with its error. */
  unreadProfiles: Array<{ profile: string; error: string; exit_code: number }>;
}

const HEALTHS = ['failing', 'stale', 'healthy', 'unknown'] as const;

function isDocument(v: unknown): v is StatusDocument {
  return typeof v === 'object' && v !== null && Array.isArray((v as StatusDocument).jobs) && typeof (v as StatusDocument).summary === 'object';
}

export function mergeStatus(outcomes: readonly ProfileOutcome[]): MergedStatus {
  const read = outcomes.filter((o) => isDocument(o.result)) as Array<ProfileOutcome & { result: StatusDocument }>;
  const section = <K extends 'droplets' | 'volumes' | 'resources'>(key: K) =>
    read.some((o) => o.result[key]) ? read.flatMap((o) => tagged(o.result[key] as never[], o.profile)) : null;
  const summary = { failing: 0, stale: 0, healthy: 0, unknown: 0 };
  let snapshotSummary: StatusDocument['snapshot_summary'] = null;
  for (const { result } of read) {
    for (const h of HEALTHS) summary[h] += result.summary[h] ?? 0;
    if (result.snapshot_summary) {
      snapshotSummary ??= { failing: 0, stale: 0, healthy: 0, unknown: 0 };
      for (const h of HEALTHS) snapshotSummary[h] += result.snapshot_summary[h] ?? 0;
    }
  }
  const doc = {
    generated_at: read[0]?.result.generated_at ?? new Date().toISOString(),
    allow_errors: read.some((o) => o.result.allow_errors),
    summary,
    snapshot_summary: snapshotSummary,
    jobs: read.flatMap((o) => tagged(o.result.jobs, o.profile)),
    droplets: section('droplets'),
    volumes: section('volumes'),
    resources: section('resources'),
    unread: read.flatMap((o) => (o.result.unread ?? []).map((u) => ({ ...u, section: `${o.profile}: ${u.section}` }))),
  } as StatusDocument;
  return { doc, unreadProfiles: profilesNotRead(outcomes, isDocument) };
}
