import { UsageError } from '../errors.js';
import { parseDuration as parseDurationText } from '../util/time.js';

/** setTimeout overflows above this and fires at once: a longer timeout would mean none. */
const MAX_TIMER_MS = 2_147_483_647;

export const DURATION_HINT = 'use a duration such as 500ms, 30s, 5m, 1h (a bare number is seconds)';

/**
 * `500ms`, `30s`, `5m`, `1h` (a bare number is seconds) -> milliseconds.
 * Throws UsageError for anything else, zero, or more than setTimeout can hold;
 * callers reading from the environment or a profile turn that into a ConfigError.
 */
export function parseDuration(text: string): number {
  const ms = parseDurationText(text);
  if (ms === undefined) throw new UsageError(`invalid duration ${JSON.stringify(text)}: ${DURATION_HINT}`);
  if (ms <= 0) throw new UsageError(`invalid duration ${JSON.stringify(text)}: must be more than 0`);
  if (ms > MAX_TIMER_MS) throw new UsageError(`invalid duration ${JSON.stringify(text)}: must be at most 24 days`);
  return ms;
}
