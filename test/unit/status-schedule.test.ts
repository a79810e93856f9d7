// Schedules as `backupctl status` shows them: the cron expression in words
// with its time zone, and the next run computed in that zone, across zones
// and daylight-saving changes.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCronTools, type CronTools } from '../../src/fleet/schedule.js';

let tools: CronTools;
beforeAll(async () => {
  tools = await loadCronTools();
});

/** The runs after `from`, each computed from the previous one, as ISO UTC. */
function runs(cron: string, tz: string | null, from: string, n: number): string[] {
  const out: string[] = [];
  let at = new Date(from);
  for (let i = 0; i < n; i++) {
    const next = tools.nextRun(cron, tz, at);
    if (!next) break;
    out.push(next.toISOString());
    at = next;
  }
  return out;
}

/** The wall clock of an instant in a zone, "YYYY-MM-DD HH:MM". */
function wallClock(iso: string, tz: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

describe('schedule words', () => {
  it.each([
    ['0 2 * * *', 'Europe/Paris', 'daily at 02:00 Europe/Paris'],
    ['30 1 * * *', 'Europe/Berlin', 'daily at 01:30 Europe/Berlin'],
    ['0 2,14 * * *', 'UTC', 'daily at 02:00 and 14:00 UTC'],
    ['@daily', 'UTC', 'daily at 00:00 UTC'],
    ['15 0 * * 0', 'Europe/Paris', 'at 00:15, only on Sunday Europe/Paris'],
    ['0 22 * * 1-5', 'America/New_York', 'at 22:00, Monday through Friday America/New_York'],
    ['0 3 1 * *', 'Europe/London', 'at 03:00, on day 1 of the month Europe/London'],
    ['*/15 * * * *', 'UTC', 'every 15 minutes UTC'],
    ['0 */6 * * *', 'UTC', 'on the hour, every 6 hours UTC'],
  ])('%s in %s reads "%s"', (cron, tz, words) => {
    expect(tools.words(cron, tz)).toBe(words);
  });

  it('names UTC when the schedule has no time zone, as the service assumes', () => {
    expect(tools.words('0 4 * * *', null)).toBe('daily at 04:00 UTC');
    expect(tools.words('0 4 * * *', '  ')).toBe('daily at 04:00 UTC');
  });

  it('gives no words for an expression it cannot read', () => {
    expect(tools.words('61 2 * * *', 'UTC')).toBeUndefined();
    expect(tools.words('not a cron', 'UTC')).toBeUndefined();
    expect(tools.words('', 'UTC')).toBeUndefined();
  });
});

describe('next run', () => {
  it('is computed in the schedule\'s time zone, winter and summer', () => {
    // Paris is UTC+1 in January and UTC+2 in July.
    expect(runs('0 2 * * *', 'Europe/Paris', '2026-01-15T12:00:00Z', 1)).toEqual(['2026-01-16T01:00:00.000Z']);
    expect(runs('0 2 * * *', 'Europe/Paris', '2026-07-15T12:00:00Z', 1)).toEqual(['2026-07-16T00:00:00.000Z']);
    // Tokyo has no daylight-saving time: 02:45 JST is 17:45 UTC the day before.
    expect(runs('45 2 * * *', 'Asia/Tokyo', '2026-07-15T12:00:00Z', 2)).toEqual(['2026-07-15T17:45:00.000Z', '2026-07-16T17:45:00.000Z']);
    expect(runs('0 4 * * *', 'America/New_York', '2026-01-15T12:00:00Z', 1)).toEqual(['2026-01-16T09:00:00.000Z']);
  });

  it('is the next one strictly after the moment given', () => {
    expect(runs('0 2 * * *', 'UTC', '2026-01-15T02:00:00Z', 1)).toEqual(['2026-01-16T02:00:00.000Z']);
    expect(runs('0 */6 * * *', 'UTC', '2026-01-15T05:59:59Z', 3)).toEqual([
      '2026-01-15T06:00:00.000Z',
      '2026-01-15T12:00:00.000Z',
      '2026-01-15T18:00:00.000Z',
    ]);
  });

  it('keeps the wall-clock time across the spring change (Europe/Paris, 29 March 2026)', () => {
    const next = runs('0 1 * * *', 'Europe/Paris', '2026-03-27T12:00:00Z', 4);
    // 01:00 on the 29th is still winter time (the clocks go forward at 02:00); from the 30th it is summer time.
    expect(next).toEqual(['2026-03-28T00:00:00.000Z', '2026-03-29T00:00:00.000Z', '2026-03-29T23:00:00.000Z', '2026-03-30T23:00:00.000Z']);
    expect(next.map((t) => wallClock(t, 'Europe/Paris'))).toEqual([
      '2026-03-28 01:00',
      '2026-03-29 01:00',
      '2026-03-30 01:00',
      '2026-03-31 01:00',
    ]);
  });

  it('runs a job whose time the spring change skips right after the gap, once (02:30 does not exist on 29 March in Paris)', () => {
    const next = runs('30 2 * * *', 'Europe/Paris', '2026-03-28T12:00:00Z', 3);
    expect(next).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z']);
    expect(next.map((t) => wallClock(t, 'Europe/Paris'))).toEqual(['2026-03-29 03:00', '2026-03-30 02:30', '2026-03-31 02:30']);
  });

  it('runs a daily job once when the autumn change repeats its time (02:30 twice on 25 October in Paris)', () => {
    const next = runs('30 2 * * *', 'Europe/Paris', '2026-10-24T12:00:00Z', 2);
    expect(next).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('runs an hourly job every real hour through the autumn change', () => {
    // 02:00 CEST, 02:00 CET, 03:00 CET: one hour apart in UTC each.
    expect(runs('0 * * * *', 'Europe/Paris', '2026-10-24T23:30:00Z', 3)).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T02:00:00.000Z',
    ]);
  });

  it('follows New York across its own change date (8 March 2026), not Europe\'s', () => {
    expect(runs('0 4 * * *', 'America/New_York', '2026-03-06T12:00:00Z', 3)).toEqual([
      '2026-03-07T09:00:00.000Z',
      '2026-03-08T08:00:00.000Z',
      '2026-03-09T08:00:00.000Z',
    ]);
  });

  it('has no next run for an unreadable expression or time zone', () => {
    expect(tools.nextRun('61 2 * * *', 'UTC', new Date('2026-01-01T00:00:00Z'))).toBeUndefined();
    expect(tools.nextRun('0 2 * * *', 'Mars/Olympus_Mons', new Date('2026-01-01T00:00:00Z'))).toBeUndefined();
  });

  it('reads a schedule without a time zone as UTC', () => {
    expect(runs('0 4 * * *', null, '2026-07-15T12:00:00Z', 1)).toEqual(['2026-07-16T04:00:00.000Z']);
  });
});

describe('one Cron per schedule', () => {
  // The tools keep a paused Cron per expression and zone: an answer must not depend on what was asked before.
  it('answers as a fresh Cron at instants asked out of order, across a clock change', async () => {
    const { Cron } = await import('croner');
    const instants = ['2027-03-30T00:00:00Z', '2027-03-27T12:00:00Z', '2027-03-28T00:59:00Z', '2026-10-25T00:30:00Z', '2027-03-28T01:30:00Z', '2027-03-27T12:00:00Z'];
    for (const [cron, tz] of [['30 2 * * *', 'Europe/Paris'], ['0 */6 * * *', 'UTC'], ['15 1 * * *', 'America/New_York']] as const) {
      for (const at of instants) {
        const fresh = new Cron(cron, { timezone: tz, paused: true }).nextRun(new Date(at));
        expect(tools.nextRun(cron, tz, new Date(at))?.toISOString(), `${cron} ${tz} ${at}`).toBe(fresh?.toISOString());
      }
      const from = new Date('2027-03-20T00:00:00Z');
      const to = new Date('2027-04-02T00:00:00Z');
      const all: string[] = [];
      for (let at = new Cron(cron, { timezone: tz, paused: true }).nextRun(new Date(from.getTime() - 1)); at && at <= to; at = new Cron(cron, { timezone: tz, paused: true }).nextRun(at)) {
        all.push(at.toISOString());
      }
      expect(tools.runsBetween(cron, tz, from, to)?.map((d) => d.toISOString())).toEqual(all);
    }
  });

  it('is not made of an unreadable expression or zone: each call answers undefined', () => {
    for (let i = 0; i < 2; i++) {
      expect(tools.nextRun('61 * * * *', 'UTC', new Date('2027-01-01T00:00:00Z'))).toBeUndefined();
      expect(tools.nextRun('0 2 * * *', 'Mars/Olympus', new Date('2027-01-01T00:00:00Z'))).toBeUndefined();
      expect(tools.runsBetween('61 * * * *', 'UTC', new Date('2027-01-01T00:00:00Z'), new Date('2027-01-02T00:00:00Z'))).toBeUndefined();
      expect(tools.words('61 * * * *')).toBeUndefined();
    }
  });

  it('keeps the words of each zone apart', () => {
    expect([tools.words('0 2 * * *', 'Europe/Paris'), tools.words('0 2 * * *', 'UTC'), tools.words('0 2 * * *'), tools.words('0 2 * * *', 'Europe/Paris')]).toEqual([
      'daily at 02:00 Europe/Paris',
      'daily at 02:00 UTC',
      'daily at 02:00 UTC',
      'daily at 02:00 Europe/Paris',
    ]);
  });
});
