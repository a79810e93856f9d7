// What a schedule's runs are computed from (issue 30 §2, issue 42 §4): the one schedule reader of
// every command: status (next run, staleness), report (expected runs), the retention forecast
// (src/fleet/runs.ts, src/retention/runs.ts) and the jobs' tables (jobs list, jobs get).
//
// The interface document's schedule carries a cron expression; the published service's carries
// `frequency` ("h6", or 6 with frequency_mode "hour") and `run_offset` (hours from 00:00 of its
// time zone: UTC, h6, offset 3 runs at 03:00, 09:00, 15:00, 21:00), and its example object a
// `cron: "0 * * * *"` beside `frequency: 24` that would mean 24 runs a day. So:
// - a schedule without a (readable) frequency runs at its cron times;
// - a schedule with a frequency and no cron runs at frequency + run_offset + timezone;
// - with both, when the cron fires as often as the frequency says (a daily cron beside h24),
//   they agree and the cron's times are used (they carry the minute, which run_offset cannot);
//   when they disagree, the frequency wins, and `conflict` says so (report --explain, notes).
import { snapshotScheduleCron } from './snapshot-cron.js';

/** The fields of a schedule record runs are computed from (as the service sent them). */
export interface ScheduleFields {
  id?: unknown;
  cron?: unknown;
  frequency?: unknown;
  frequency_mode?: unknown;
  run_offset?: unknown;
  timezone?: unknown;
}

export interface ScheduleBasis {
  /** The cron expression the runs are computed from: the schedule's own, or made from its frequency; null when neither is readable. */
  cron: string | null;
  /** Where `cron` came from. */
  source: 'cron' | 'frequency' | 'none';
  /** How the schedule is shown: its cron expression, or "every 6h from 03:00". */
  text: string;
  /** Both present and disagreeing: which won and why (for --explain and the notes). */
  conflict?: string;
  /** Why no run can be computed. */
  unreadable?: string;
}

/** `h6`, `m30`, or a number with its frequency_mode, as the snapshot-schedule reader takes it (`h6`, `m30`). */
function frequencyText(frequency: unknown, mode: unknown): string | undefined {
  if (typeof frequency === 'string' && /^[hm]\d+$/i.test(frequency.trim())) return frequency.trim().toLowerCase();
  const n = typeof frequency === 'number' ? frequency : typeof frequency === 'string' && /^\d+$/.test(frequency.trim()) ? Number(frequency) : undefined;
  if (n === undefined || !Number.isInteger(n) || n < 1) return undefined;
  return `${typeof mode === 'string' && mode.toLowerCase().startsWith('min') ? 'm' : 'h'}${n}`;
}

function minutesOf(freq: string): number {
  const n = Number(freq.slice(1));
  return freq[0] === 'm' ? n : n * 60;
}

/**
 * How many minutes apart a cron expression's runs are, when it says so plainly (`*\/15 * * * *`: 15,
 * `0 * * * *`: 60, `0 *\/6 * * *`: 360, `30 2 * * *`: 1440, `0 3 * * 0`: 10080); undefined otherwise.
 */
export function cronSpacingMinutes(cron: string): number | undefined {
  const f = cron.trim().split(/\s+/);
  if (f.length !== 5) {
    const nick = cron.trim().toLowerCase();
    return ({ '@hourly': 60, '@daily': 1440, '@midnight': 1440, '@weekly': 10080 } as Record<string, number>)[nick];
  }
  const [minute, hour, dom, month, dow] = f as [string, string, string, string, string];
  const any = (x: string) => x === '*' || x === '?';
  const everyDay = any(dom) && any(month);
  const step = (x: string) => /^(?:\*|\d+-\d+)\/(\d+)$/.exec(x)?.[1];
  const list = (x: string) => (/^\d+(,\d+)+$/.test(x) ? x.split(',').map(Number) : undefined);
  const even = (xs: number[], period: number) => {
    const gaps = xs.map((x, i) => ((xs[(i + 1) % xs.length]! - x + period) % period) || period);
    return gaps.every((g) => g === gaps[0]) ? gaps[0] : undefined;
  };
  if (!everyDay) return undefined;
  if (any(minute)) return any(hour) && any(dow) ? 1 : undefined;
  const minuteStep = step(minute);
  if (minuteStep) return any(hour) && any(dow) ? Number(minuteStep) : undefined;
  const minutes = list(minute);
  if (minutes) return any(hour) && any(dow) ? even(minutes, 60) : undefined;
  if (!/^\d+$/.test(minute)) return undefined;
  if (any(hour)) return any(dow) ? 60 : undefined;
  const hourStep = step(hour);
  if (hourStep) return any(dow) ? Number(hourStep) * 60 : undefined;
  const hours = list(hour);
  if (hours) return any(dow) ? (even(hours, 24) ?? 0) * 60 || undefined : undefined;
  if (!/^\d+$/.test(hour)) return undefined;
  if (any(dow)) return 1440;
  return /^\d$/.test(dow) ? 10080 : undefined;
}

function spacingText(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? 'once a day' : minutes === 10080 ? 'once a week' : `every ${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? 'every hour' : `every ${minutes / 60} hours`;
  return `every ${minutes} minutes`;
}

/** What a schedule's runs are computed from (see the top of this file). */
export function scheduleBasis(s: ScheduleFields): ScheduleBasis {
  const cron = typeof s.cron === 'string' && s.cron.trim() ? s.cron.trim() : null;
  const freq = frequencyText(s.frequency, s.frequency_mode);
  const made = freq ? snapshotScheduleCron(freq, s.run_offset) : undefined;
  const fromFrequency = made && 'cron' in made ? made.cron : undefined;
  const label = s.id === undefined || s.id === null ? 'the schedule' : `schedule ${String(s.id)}`;
  if (!fromFrequency) {
    if (cron) return { cron, source: 'cron', text: cron };
    const why = made && 'unreadable' in made ? made.unreadable : 'it has no cron expression and no frequency';
    return { cron: null, source: 'none', text: made?.text ?? 'no cron expression', unreadable: why };
  }
  const text = made!.text;
  if (!cron) return { cron: fromFrequency, source: 'frequency', text };
  const spacing = cronSpacingMinutes(cron);
  if (spacing !== undefined && spacing === minutesOf(freq!)) return { cron, source: 'cron', text: cron };
  const offset = s.run_offset === undefined || s.run_offset === null ? '' : `, run_offset ${String(s.run_offset)}`;
  return {
    cron: fromFrequency,
    source: 'frequency',
    text,
    conflict:
      `${label}: its cron "${cron}" (${spacing === undefined ? 'a pattern that is not a plain interval' : spacingText(spacing)}) and its frequency ` +
      `(${freq}${offset}: ${text}) disagree; the frequency wins, as the service schedules by it`,
  };
}

