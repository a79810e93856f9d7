// The manual page the build generates from the registry (dist/backupctl.1),
// shipped through package.json `man`, rendered by man(1) without a warning.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import type { Manifest } from '../../src/contract/spec.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8')) as Manifest;
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { man: string[]; files: string[] };
const page = path.join(ROOT, 'dist', 'backupctl.1');
// .ci/run installs man-db and groff-base when they are missing; without them these tests fail, never skip.
const hasMan = spawnSync('man', ['--version'], { stdio: 'ignore' }).status === 0;

function render(width: number): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('man', ['--warnings', '-l', page], {
    encoding: 'utf8',
    // MAN_DISABLE_SECCOMP: man-db's sandbox refuses the semaphore libfaketime opens when the suite runs under faketime.
    env: { ...process.env, MANWIDTH: String(width), MANPAGER: 'cat', PAGER: 'cat', LANG: 'C.UTF-8', MAN_DISABLE_SECCOMP: '1' },
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('backupctl.1', () => {
  it('has man(1) to render it with (Debian: apt-get install man-db groff-base; .ci/run does)', () => {
    expect(hasMan, 'man(1) is not installed').toBe(true);
  });

  it('is shipped through package.json man, gzipped, from dist/ which the package includes', () => {
    // npm links a man entry ending in .gz as is (man1/backupctl.1.gz): the same page in 16 kB instead of 71.
    expect(pkg.man).toEqual(['./dist/backupctl.1.gz']);
    expect(pkg.files).toContain('dist/');
    expect(readFileSync(page, 'utf8')).toMatch(/^\.TH BACKUPCTL 1 /);
    expect(gunzipSync(readFileSync(`${page}.gz`)).toString('utf8')).toBe(readFileSync(page, 'utf8'));
  });

  it('renders with man -l without a warning, at 80 and 60 columns', () => {
    for (const width of [80, 60]) {
      const r = render(width);
      expect(r.stderr, `MANWIDTH=${width}`).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^BACKUPCTL\(1\)/);
    }
  });

  it('lists every command with its options and examples, the global options and the exit codes', () => {
    const text = render(200).stdout;
    for (const section of ['NAME', 'SYNOPSIS', 'GLOBAL OPTIONS', 'COMMANDS', 'EXIT STATUS', 'ENVIRONMENT']) expect(text).toMatch(new RegExp(`^${section}$`, 'm'));
    for (const c of manifest.commands.filter((x) => !x.hidden)) {
      expect(text, c.path.join(' ')).toContain(`backupctl ${c.path.join(' ')}`);
      expect(text, c.path.join(' ')).toContain(c.examples[0]!);
    }
    expect(text).toContain('--profile <name>');
    expect(text).toContain('--wait-timeout <duration>');
    expect(text).toMatch(/^\s+130\s+interrupted/m);
    expect(text).toContain('BACKUPCTL_TOKEN');
  });

  it('is made at build time from the registry, not checked in', () => {
    expect(execFileSync('git', ['ls-files', 'backupctl.1', 'dist/backupctl.1', 'dist/backupctl.1.gz', 'docs/backupctl.1'], { cwd: ROOT, encoding: 'utf8' })).toBe('');
  });
});
