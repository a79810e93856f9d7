// report --all-profiles / --profiles a,b (issue 42.11): every profile's report merged
// into one document, each entry marked with its profile; the totals are counted again
// over the merged entries, so the summary reads as one report's.
import type { ProfileOutcome } from '../contract/context.js';
import { profilesNotRead, tagged } from '../fleet/profiles.js';
import { totalsOf } from './compute.js';
import type { ReportDocument } from './document.js';
import type { Evidence } from './evidence.js';

/** The evidence sections of several profiles as one: each job named "profile: job", the counts added up. */
function mergeEvidence(parts: ReadonlyArray<{ profile: string; ev: Evidence }>): Evidence {
  const jobs = parts.flatMap(({ profile, ev }) => ev.jobs.map((j) => ({ ...j, job: `${profile}: ${j.job}` })));
  const files = [...new Set(parts.map((p) => p.ev.plan_file))];
  const all = jobs.flatMap((j) => j.tests);
  return {
    plan_file: files.join(', '),
    judged_at: parts[0]!.ev.judged_at,
    summary: { jobs: jobs.length, covered: jobs.filter((j) => j.covered).length, tests: all.length, tests_covered: all.filter((t) => t.covered).length },
    jobs,
  };
}

function isDocument(v: unknown): v is ReportDocument {
  return typeof v === 'object' && v !== null && Array.isArray((v as ReportDocument).jobs) && typeof (v as ReportDocument).window === 'object';
}

export function mergeReport(outcomes: readonly ProfileOutcome[]): { doc: ReportDocument; unreadProfiles: ReturnType<typeof profilesNotRead> } {
  const read = outcomes.filter((o) => isDocument(o.result)) as Array<ProfileOutcome & { result: ReportDocument }>;
  const section = <K extends 'droplets' | 'volumes' | 'resources'>(key: K) =>
    read.some((o) => o.result[key]) ? read.flatMap((o) => tagged(o.result[key] ?? [], o.profile)) : null;
  const jobs = read.flatMap((o) => tagged(o.result.jobs, o.profile));
  const droplets = section('droplets');
  const volumes = section('volumes');
  const resources = section('resources');
  const first = read[0]?.result;
  const checks = read.map((o) => o.result.check).filter((c) => c);
  // The evidence of every profile that was given plans: one section, each job named with its profile.
  const evidences = read.filter((o) => o.result.assurance);
  const assurance = evidences.length ? mergeEvidence(evidences.map((o) => ({ profile: o.profile, ev: o.result.assurance! }))) : null;
  const doc: ReportDocument = {
    generated_at: first?.generated_at ?? new Date().toISOString(),
    window: first?.window ?? { since: '', until: '', grace_seconds: 0 },
    summary: {
      jobs: totalsOf(jobs),
      droplets: droplets && totalsOf(droplets),
      volumes: volumes && totalsOf(volumes),
      resources: resources && totalsOf(resources),
    },
    jobs,
    droplets,
    volumes,
    resources,
    notes: first?.notes ?? [],
    check: checks.length
      ? {
          max_missed: checks[0]!.max_missed,
          min_success: checks[0]!.min_success,
          broken: read.flatMap((o) => (o.result.check?.broken ?? []).map((b) => ({ ...b, name: `${o.profile}: ${b.name ?? b.id}` }))),
        }
      : null,
    assurance,
  };
  return { doc, unreadProfiles: profilesNotRead(outcomes, isDocument) };
}

/** For Markdown and HTML, which have no profile column: each entry's name says its profile. */
export function namedByProfile(doc: ReportDocument): ReportDocument {
  const name = <T extends { name: string | null; id?: unknown }>(e: T): T => {
    const profile = (e as { profile?: unknown }).profile;
    return typeof profile === 'string' ? { ...e, name: `${profile}: ${e.name ?? String(e.id ?? '?')}` } : e;
  };
  const each = <T extends { name: string | null }>(rows: T[] | null) => rows && rows.map(name);
  return { ...doc, jobs: doc.jobs.map(name), droplets: each(doc.droplets), volumes: each(doc.volumes), resources: each(doc.resources) };
}
