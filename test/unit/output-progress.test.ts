// The progress bar of `verify` and `jobs backup download` (src/output/progress.ts),
// drawn with an injected clock: what it says, and when it redraws.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProgressBar } from '../../src/output/progress.js';

const MiB = 1024 * 1024;

function bar(total: number, files: number, columns?: number) {
  let now = 5_000;
  // A terminal's stderr has columns; a PassThrough stands for one.
  const out = Object.assign(new PassThrough(), columns === undefined ? {} : { columns });
  let written = '';
  out.setEncoding('utf8').on('data', (d: string) => (written += d));
  const b = new ProgressBar(out, total, files, () => now);
  return {
    b,
    tick: (ms: number) => (now += ms),
    drawn: () => written.split('\r').filter(Boolean).map((l) => l.replace(/\u001b\[K(\n?)$/, '$1')),
  };
}

describe('progress bar', () => {
  it('shows share, files, bytes, throughput and time left', () => {
    const { b, tick, drawn } = bar(100 * MiB, 2);
    tick(2_000);
    b.add(25 * MiB);
    expect(drawn()).toEqual(['[########----------------------] 25%  0/2 files  25 MiB  12.5 MiB/s  ETA 6s']);
    tick(8_000);
    b.add(50 * MiB);
    b.fileDone();
    expect(drawn().at(-1)).toBe('[#######################-------] 75%  1/2 files  75 MiB  7.5 MiB/s  ETA 4s');
  });

  it('waits 100 ms before its first redraw (a first chunk gives no rate to speak of), then redraws at most ten times a second', () => {
    const { b, tick, drawn } = bar(10 * MiB, 1);
    b.add(64 * 1024);
    tick(50);
    b.add(64 * 1024);
    expect(drawn()).toEqual([]);
    tick(60);
    b.add(64 * 1024);
    tick(50);
    b.add(64 * 1024);
    expect(drawn()).toHaveLength(1);
  });

  it('once every byte is in: no time left shown, and the last line stays with a newline', () => {
    const { b, tick, drawn } = bar(4 * MiB, 1);
    tick(1_000);
    b.add(4 * MiB);
    b.fileDone();
    b.end();
    expect(drawn().at(-1)).toBe('[##############################] 100%  1/1 files  4 MiB  4 MiB/s\n');
  });

  it('without stated sizes, the share follows the files and there is no ETA', () => {
    const { b, tick, drawn } = bar(0, 4);
    tick(1_000);
    b.add(3 * MiB);
    b.fileDone();
    expect(drawn().at(-1)).toBe('[########----------------------] 25%  1/4 files  3 MiB  3 MiB/s');
  });

  it('fits a narrow terminal: the bar shrinks, then goes, then the figures are cut; a redraw must never wrap', () => {
    const at = (columns: number) => {
      const { b, tick, drawn } = bar(100 * MiB, 12, columns);
      tick(2_000);
      b.add(25 * MiB);
      return drawn()[0]!;
    };
    expect(at(200)).toBe('[########----------------------] 25%  0/12 files  25 MiB  12.5 MiB/s  ETA 6s');
    for (const columns of [20, 30, 40, 50, 60, 70, 80]) expect(at(columns).length, `${columns} columns`).toBeLessThan(columns);
    expect(at(60)).toBe('[###----------] 25%  0/12 files  25 MiB  12.5 MiB/s  ETA 6s');
    expect(at(50)).toBe('25%  0/12 files  25 MiB  12.5 MiB/s  ETA 6s');
    expect(at(30)).toBe('25%  0/12 files  25 MiB  12.…');
  });
});
