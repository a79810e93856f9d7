// The future runs of a schedule and their tags (docs/retention.md, A5), at fixed instants: a daily
// schedule's Sunday and 1st, an hourly schedule's first run of a local day, and the night Europe/Paris
// springs forward (2026-03-29), when a 02:30 run comes at the first minute after the gap.
import { describe, expect, it } from 'vitest';
import { loadCronTools } from '../../src/fleet/schedule.js';
import { futureRuns, scheduleSpec } from '../../src/retention/runs.js';

const iso = (t: number) => new Date(t).toISOString();

describe('futureRuns', () => {
  it('daily: daily every day, weekly on Sundays, monthly on the 1st', async () => {
    const tools = await loadCronTools();
    const runs = futureRuns(tools, [{ cron: '0 3 * * *', timezone: 'UTC', text: '' }], Date.parse('2026-02-27T12:00:00Z'), Date.parse('2026-03-02T12:00:00Z'))!;
    expect(runs.map((r) => [iso(r.at), r.tags.join(',')])).toEqual([
      ['2026-02-28T03:00:00.000Z', 'daily'],
      ['2026-03-01T03:00:00.000Z', 'daily,weekly,monthly'],
      ['2026-03-02T03:00:00.000Z', 'daily'],
    ]);
  });

  it('every 6 hours in Europe/Paris: hourly always, daily only on the first run of the local day', async () => {
    const tools = await loadCronTools();
    const runs = futureRuns(tools, [{ cron: '0 */6 * * *', timezone: 'Europe/Paris', text: '' }], Date.parse('2026-03-10T00:00:00Z'), Date.parse('2026-03-10T23:59:00Z'))!;
    // Local 06:00, 12:00, 18:00 on the 10th, then 00:00 on the 11th (23:00Z), the first of its day.
    expect(runs.map((r) => [iso(r.at), r.tags.join(',')])).toEqual([
      ['2026-03-10T05:00:00.000Z', 'hourly'],
      ['2026-03-10T11:00:00.000Z', 'hourly'],
      ['2026-03-10T17:00:00.000Z', 'hourly'],
      ['2026-03-10T23:00:00.000Z', 'hourly,daily'],
    ]);
  });

  it('a run in the spring-forward gap still runs that day, and is that day\'s daily', async () => {
    const tools = await loadCronTools();
    const runs = futureRuns(tools, [{ cron: '30 2 * * *', timezone: 'Europe/Paris', text: '' }], Date.parse('2026-03-28T12:00:00Z'), Date.parse('2026-03-30T12:00:00Z'))!;
    expect(runs).toHaveLength(2);
    expect(runs.map((r) => r.tags.join(','))).toEqual(['daily,weekly', 'daily']);
  });

  it('a droplet\'s frequency and run offset are a cron expression in its time zone', () => {
    expect(scheduleSpec({ frequency: 6, run_offset: 3, timezone: 'Europe/Berlin' })).toEqual({ cron: '0 3-23/6 * * *', timezone: 'Europe/Berlin', text: 'every 6h from 03:00 Europe/Berlin' });
    expect(scheduleSpec({ frequency: 'h24', run_offset: 1 })).toEqual({ cron: '0 1 * * *', timezone: 'UTC', text: 'every 24h from 01:00 UTC' });
    expect(scheduleSpec({ frequency: 'weekly' })).toHaveProperty('unreadable');
  });
});
