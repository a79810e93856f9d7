// restore-file's sink (src/restore/pick.ts) on the walk the content stage
// hands it: restore-test's path rule (absolute, "..", NUL refused: exit 14,
// nothing written), links not made, the archive's mtimes and modes kept
// without setuid, setgid and sticky, folders last, the bounds.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BOUNDS } from '../../src/pipeline/bounds.js';
import type { ArchiveEntry } from '../../src/pipeline/types.js';
import { PickSink, type PickOptions } from '../../src/restore/pick.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setUp(wanted: string, o: Partial<PickOptions> = {}) {
  const base = mkdtempSync(path.join(tmpdir(), 'backupctl-pick-'));
  dirs.push(base);
  const root = path.join(base, 'into');
  const events = { warnings: [] as string[], done: 0, failure: undefined as Error | undefined };
  const sink = new PickSink({
    wanted,
    root,
    stdout: new PassThrough(),
    bounds: DEFAULT_BOUNDS,
    warn: (m) => events.warnings.push(m),
    done: () => events.done++,
    fail: (err) => (events.failure ??= err),
    ...o,
  });
  return { base, root, sink, events };
}

const file = (p: string, data: string, extra: Partial<ArchiveEntry> = {}): [ArchiveEntry, string] => [
  { path: p, type: 'file', size: data.length, mode: 0o644, uid: 0, gid: 0, mtime: 1_700_000_000, ...extra },
  data,
];

/** Walks `members` as the content stage does: begin, entry, data, end; then the sink's end. */
async function walk(sink: PickSink, members: Array<[ArchiveEntry, string]>) {
  sink.entries.begin('tar');
  for (const [e, data] of members) {
    const r = sink.entries.entry(e);
    if (r) {
      r.data(Buffer.from(data));
      await r.end(0);
    }
  }
  sink.entries.close();
  return sink.end();
}

describe('PickSink', () => {
  it('refuses "..", an absolute path and a NUL byte by restore-test\'s rule: exit 14, nothing outside', async () => {
    for (const name of ['../escaped.txt', 'docs/../../escaped.txt', '/etc/escaped.txt', 'docs/a\0b']) {
      const wanted = name.startsWith('docs') ? 'docs' : name.startsWith('/') ? 'etc' : '..';
      const { base, sink, events } = setUp(wanted);
      await mkdirInto(base);
      await walk(sink, [file(name, 'x')]);
      expect(events.failure, name).toBeDefined();
      expect((events.failure as { exitCode?: number }).exitCode).toBe(14);
      expect(events.failure!.message).toMatch(/refused the entry/);
      expect(existsSync(path.join(base, 'escaped.txt'))).toBe(false);
      expect(existsSync('/etc/escaped.txt')).toBe(false);
    }
  });

  it('links are not made (named on stderr); files keep mtime and mode without setuid, setgid, sticky', async () => {
    const { base, root, sink, events } = setUp('app');
    await mkdirInto(base);
    const result = await walk(sink, [
      [{ path: 'app', type: 'directory', size: 0, mode: 0o750, uid: 0, gid: 0, mtime: 1_600_000_000 }, ''],
      file('app/run.sh', '#!/bin/sh\n', { mode: 0o6755 }),
      file('app/data.txt', 'hello', { mode: 0o1640, mtime: 1_650_000_000 }),
      [{ path: 'app/escape', type: 'symlink', size: 0, mode: 0o777, uid: 0, gid: 0, mtime: 0, link: '../../../etc/passwd' }, ''],
      file('other/skip.txt', 'no'),
    ]);
    expect(events.failure).toBeUndefined();
    expect(result).toEqual({ archive: true, written: 2, skipped: 1 });
    expect(events.warnings).toEqual(['app/escape: a symlink entry, not restored (a link could lead outside the folder)']);
    expect(existsSync(path.join(root, 'app', 'escape'))).toBe(false);
    expect(existsSync(path.join(root, 'other'))).toBe(false);
    const run = statSync(path.join(root, 'app', 'run.sh'));
    expect(run.mode & 0o7777).toBe(0o755);
    const data = statSync(path.join(root, 'app', 'data.txt'));
    expect(data.mode & 0o7777).toBe(0o640);
    expect(data.mtimeMs).toBe(1_650_000_000_000);
    expect(readFileSync(path.join(root, 'app', 'data.txt'), 'utf8')).toBe('hello');
    const folder = statSync(path.join(root, 'app'));
    expect(folder.mode & 0o777).toBe(0o750);
    expect(folder.mtimeMs).toBe(1_600_000_000_000);
  });

  it('the one file wanted: done as soon as it is written', async () => {
    const { base, root, sink, events } = setUp('app/data.txt');
    await mkdirInto(base);
    await walk(sink, [file('app/data.txt', 'hello')]);
    expect(events.done).toBe(1);
    expect(readFileSync(path.join(root, 'app', 'data.txt'), 'utf8')).toBe('hello');
  });

  it('BACKUPCTL_RESTORE_MAX_BYTES holds for what is written', async () => {
    const { base, sink, events } = setUp('app', { bounds: { ...DEFAULT_BOUNDS, maxExtractBytes: 8 } });
    await mkdirInto(base);
    await walk(sink, [file('app/a.txt', 'hello'), file('app/b.txt', 'world')]);
    expect(events.failure?.message).toMatch(/BACKUPCTL_RESTORE_MAX_BYTES/);
  });
});

async function mkdirInto(base: string) {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(path.join(base, 'into'), { mode: 0o700 });
}
