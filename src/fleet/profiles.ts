// --all-profiles for the fleet views (status, report; issue 42.11): a row of a document
// merged from several profiles carries the profile it came from.
import type { ProfileOutcome } from '../contract/context.js';

/** A row of a merged document: the profile it came from. */
export type FromProfile<T> = T & { profile: string };

/** The profile a merged row came from ('' for a row of one profile's document). */
export function profileOf(row: object): string {
  const p = (row as { profile?: unknown }).profile;
  return typeof p === 'string' ? p : '';
}

/** Rows of one profile's document, each marked with the profile. */
export function tagged<T extends object>(rows: readonly T[] | null | undefined, profile: string): Array<FromProfile<T>> {
  return (rows ?? []).map((r) => ({ profile, ...r }));
}

/** The profiles whose run left no document at all (unreachable, refused): each with its error. */
export function profilesNotRead(outcomes: readonly ProfileOutcome[], isDocument: (v: unknown) => boolean): Array<{ profile: string; error: string; exit_code: number }> {
  return outcomes.filter((o) => !isDocument(o.result)).map((o) => ({ profile: o.profile, error: o.error ?? 'failed', exit_code: o.exit_code }));
}

/** "Profile p: not read: … (exit 3)" lines under a merged view. */
export function notReadLines(list: ReturnType<typeof profilesNotRead>, sanitize: (s: string) => string): string {
  return list.map((u) => `Profile ${sanitize(u.profile)}: not read: ${sanitize(u.error)} (exit ${u.exit_code})\n`).join('');
}
