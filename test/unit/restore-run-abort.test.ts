// Ctrl-C that comes before restore-test's run begins (while the job and its backup are looked up): an
// AbortSignal that is already aborted fires no 'abort' event, and the run's own controller only listened
// for one. The whole restore then ran, printed "restored" and exited 130 (seen in a sweep of SIGINT delays).
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { restoreBackup } from '../../src/restore/run.js';
import type { Transfer } from '../../src/pipeline/types.js';

describe('restoreBackup with a signal aborted before it began', () => {
  it('stops at once: the transfer gets an aborted signal, and the run throws the interruption', async () => {
    const ac = new AbortController();
    ac.abort(new InterruptedError('Interrupted'));
    const seen: boolean[] = [];
    const transfer = (signal: AbortSignal): Transfer => {
      seen.push(signal.aborted);
      return {
        async read() {
          if (signal.aborted) throw signal.reason;
          throw new Error('read with a signal that was not aborted');
        },
        range() {
          throw new Error('no range');
        },
      };
    };
    const run = restoreBackup(
      { id: 'b1', created_at: '2026-11-26T02:00:00Z', status: 'completed', encrypted: false, files: [{ name: 'db.sql', url: 'http://127.0.0.1:9/db.sql', size: '1 kB' }] },
      {
        job: { id: 'j1', name: 'db' },
        selection: 'latest',
        transfer,
        restore: { engine: 'embedded', asserts: [], execTimeoutMs: 10_000, keep: false, allowEmpty: false },
        timeoutMs: 60_000,
        signal: ac.signal,
        now: () => new Date('2026-11-26T03:00:00Z'),
      },
    );
    await expect(run).rejects.toBeInstanceOf(InterruptedError);
    expect(seen).toEqual([true]);
  });
});
