// Issue 18, finding 5, in-process: many takers of one run lock at once, the
// lock holding what an older version or a killed run left. Exactly one wins.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { acquireRunLock } from '../../src/jobs/cron.js';
import { LockedError } from '../../src/errors.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const lockFile = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'backupctl-lock-unit-'));
  dirs.push(d);
  return path.join(d, 'run.lock');
};

async function takers(file: string, n: number) {
  // Staggered by a few milliseconds, so that their steps interleave as separate processes' do.
  const results = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => new Promise((r) => setTimeout(r, i % 4)).then(() => acquireRunLock(file))),
  );
  const won = results.filter((r) => r.status === 'fulfilled');
  const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  for (const l of lost) expect(l.reason).toBeInstanceOf(LockedError);
  for (const w of won) await (w as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
  return won.length;
}

describe('finding 5: one taker of a stale lock', () => {
  it('20 takers of a lock {"pid":999999}: exactly one, in each of 5 rounds', async () => {
    for (let round = 0; round < 5; round++) {
      const file = lockFile();
      writeFileSync(file, JSON.stringify({ pid: 999999 }));
      expect(await takers(file, 20)).toBe(1);
    }
  });

  it('20 takers of an empty lock left long ago: exactly one', async () => {
    for (let round = 0; round < 5; round++) {
      const file = lockFile();
      writeFileSync(file, '');
      // A minute before the file's own time: the kernel dates files by the real clock, also under faketime.
      const old = new Date(statSync(file).mtimeMs - 60_000);
      utimesSync(file, old, old);
      expect(await takers(file, 20)).toBe(1);
    }
  });

  it('a fresh empty lock (its owner is writing it) is not taken', async () => {
    const file = lockFile();
    writeFileSync(file, '');
    expect(await takers(file, 3)).toBe(0);
  });
});
