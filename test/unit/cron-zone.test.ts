// cronZone: UTC schedules as croner's fixed offset 0 give the same runs as the named zone.
import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { UTC_NAMES, cronZone } from '../../src/util/cron-zone.js';

const runs = (cron: string, opts: object, n: number) => {
  const c = new Cron(cron, { ...opts, paused: true });
  const out: number[] = [];
  let at: Date | null = new Date(Date.UTC(2026, 0, 1));
  while (out.length < n && (at = c.nextRun(at))) out.push(at.getTime());
  return out;
};

describe('cronZone', () => {
  it('every name it treats as offset 0 is a zone Intl knows at offset 0, winter and summer', () => {
    for (const name of UTC_NAMES) {
      for (const at of [Date.UTC(2026, 0, 15, 12), Date.UTC(2026, 6, 15, 12)]) {
        const parts = new Intl.DateTimeFormat('en-US', { timeZone: name, hour: 'numeric', hour12: false, timeZoneName: 'longOffset' }).formatToParts(at);
        expect([name, parts.find((p) => p.type === 'hour')?.value], name).toEqual([name, '12']);
      }
    }
  });

  it('gives the runs of the named zone for UTC, and keeps other zones named', () => {
    for (const cron of ['0 */6 * * *', '30 2 * * 1-5', '15 0 29 2 *', '*/20 * * * *', '0 0 L * *']) {
      expect(runs(cron, cronZone('UTC'), 400), cron).toEqual(runs(cron, { timezone: 'UTC' }, 400));
    }
    expect(cronZone(' Etc/UTC ')).toEqual({ utcOffset: 0 });
    expect(cronZone('Europe/Paris')).toEqual({ timezone: 'Europe/Paris' });
    expect(runs('0 2 * * *', cronZone('Europe/Paris'), 400)).toEqual(runs('0 2 * * *', { timezone: 'Europe/Paris' }, 400));
  });
});
