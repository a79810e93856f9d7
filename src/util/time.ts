// Durations and datetimes as users type them. Tiny on purpose: loaded at start-up by some commands.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `500ms`, `30s`, `5m`, `2h`, `1d`, `2w`, `1h30m`; a bare number is seconds. Milliseconds, or undefined. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;
  let total = 0;
  let consumed = 0;
  for (const m of s.matchAll(re)) {
    if (m.index !== consumed) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed += m[0].length;
  }
  if (consumed !== s.length || consumed === 0) return undefined;
  return Math.round(total);
}

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * ISO 8601 (a date, or a datetime; no zone means UTC) or an age (`90m`,
 * `24h`, `7d`, `2w`: that long before `now`). Returns ISO 8601 UTC, or undefined.
 */
export function parseDatetime(text: string, now: number = Date.now()): string | undefined {
  const s = text.trim();
  if (/^\d+(?:\.\d+)?(ms|s|m|h|d|w)$/i.test(s) || /^(\d+(?:\.\d+)?(ms|s|m|h|d|w))+$/i.test(s)) {
    const ms = parseDuration(s);
    return ms === undefined ? undefined : new Date(now - ms).toISOString();
  }
  if (!ISO.test(s) || calendarProblem(s)) return undefined;
  let normalized = s.replace(' ', 'T');
  if (/^\d{4}-\d{2}-\d{2}$/.test(normalized)) normalized += 'T00:00:00Z';
  else if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(normalized)) normalized += 'Z';
  const t = Date.parse(normalized);
  if (Number.isNaN(t)) return undefined;
  return new Date(t).toISOString();
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * Why an ISO 8601 text names no real moment (`2026-02-30`, `2026-04-31`,
 * `T24:30`), or undefined. Date.parse rolls such dates forward silently
 * (2026-02-30 becomes 2 March), so they are caught here first.
 */
export function calendarProblem(text: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?(?:.*?([+-])(\d{2}):?(\d{2}))?/i.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((v) => (v === undefined ? undefined : Number(v)));
  if (month! < 1 || month! > 12) return `there is no month ${month}`;
  const days = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (day! < 1 || day! > days) return `${MONTHS[month! - 1]} ${year} has ${days} days`;
  if (hour > 23 || minute > 59 || second > 59) return `${m[4]}:${m[5]}${m[6] ? `:${m[6]}` : ''} is not a time of day`;
  if (m[7] && (Number(m[8]) > 23 || Number(m[9]) > 59)) return `${m[7]}${m[8]}:${m[9]} is not a time zone offset`;
  return undefined;
}

// The service's datetimes: Laravel's `2022-01-11T06:40:29.000000Z`, accounts'
// `2022-01-11 06:40:29`, and any ISO 8601 text with or without an offset.
const SERVICE_TIME =
  /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * The one parser of the service's datetimes (epoch milliseconds, or undefined
 * when the text is not one). The rule: a time with no zone is UTC, because the
 * service speaks UTC; never the local time of this machine (Date.parse would
 * read `2022-01-11T06:40:29` as local time). A date alone is its midnight UTC.
 * Fractions past milliseconds are dropped; an offset (+02, +0200, +02:00) is applied.
 */
export function parseServiceTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = SERVICE_TIME.exec(value.trim());
  if (!m) return undefined;
  const [, date, hm, sec, frac, zone] = m;
  let zoneText = zone === undefined || zone === 'z' ? 'Z' : zone;
  if (zoneText !== 'Z') {
    const digits = zoneText.slice(1).replace(':', '');
    zoneText = `${zoneText[0]}${digits.slice(0, 2)}:${(digits.slice(2) || '00').padEnd(2, '0')}`;
  }
  const ms = Date.parse(`${date}T${hm ?? '00:00'}:${sec ?? '00'}.${(frac ?? '').slice(0, 3).padEnd(3, '0')}${zoneText}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * How far ahead of our clock a service time may be and still count as now (the two
 * clocks differ a little). A time further ahead (a backup dated 2099) has no age: it is
 * not fresh, whatever --max-age asks.
 */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** Milliseconds from `when` to `now` (0 within the clock skew); undefined when unknown or in the future. */
export function ageMs(when: number | undefined, now: number): number | undefined {
  if (when === undefined || when > now + CLOCK_SKEW_MS) return undefined;
  return Math.max(0, now - when);
}
