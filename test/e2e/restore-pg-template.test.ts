// restore-test's local PostgreSQL from a template (src/restore/sql/pg-template.ts): initdb runs for
// the first test of an installation only; later tests copy its cluster and set their own password
// (a passing restore proves the copy took the new one: the template knows only the first's); a
// template open to others is never used and is made again; BACKUPCTL_PG_TEMPLATE=0 turns it off.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';
import { runCli } from '../helpers/cli.js';
import { PG_BIN } from '../helpers/pg-server.js';

const work = mkdtempSync(path.join(tmpdir(), 'backupctl-pgtemplate-'));
chmodSync(work, 0o755);
const bin = path.join(work, 'bin');
const log = path.join(work, 'initdb.log');
const cache = path.join(work, 'cache');
// initdb through a wrapper that counts its runs (the server account, nobody under root, writes the log).
{
  mkdirSync(bin, { mode: 0o755 });
  writeFileSync(log, '', { mode: 0o666 });
  chmodSync(log, 0o666);
  writeFileSync(path.join(bin, 'initdb'), `#!/bin/sh\necho run >> '${log}'\nexec '${PG_BIN}/initdb' "$@"\n`, { mode: 0o755 });
  writeFileSync(path.join(bin, 'postgres'), `#!/bin/sh\nexec '${PG_BIN}/postgres' "$@"\n`, { mode: 0o755 });
}
afterAll(() => rmSync(work, { recursive: true, force: true }));

const { env } = emulatorSession({ seed: 'demo', archiveFaults: true, timeoutMs: 120_000 });
const initdbRuns = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
const restore = (extra: Record<string, string> = {}) =>
  runCli(['restore-test', 'pg custom', '--engine', 'local', '--json'], { env: { ...env(), PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: cache, ...extra }, timeoutMs: 120_000 });
const templates = () => (existsSync(path.join(cache, 'backupctl', 'pg-template')) ? readdirSync(path.join(cache, 'backupctl', 'pg-template')) : []);
const passed = (r: { code: number | null; stdout: string; stderr: string }) => {
  expect(r.code, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as { results?: Array<{ verdict: string }> } | Array<{ verdict: string }>;
  const results = Array.isArray(doc) ? doc : (doc.results ?? [doc as unknown as { verdict: string }]);
  expect(JSON.stringify(results)).toContain('"passed"');
};

describe('the local PostgreSQL template', () => {
  it('initdb runs once: the first test keeps its fresh cluster (0700), the next ones copy it and pass', async () => {
    passed(await restore());
    expect(initdbRuns()).toBe(1);
    expect(templates()).toHaveLength(1);
    const t = path.join(cache, 'backupctl', 'pg-template', templates()[0]!);
    expect(templates()[0]).toMatch(/^[0-9a-f]{16}$/);
    expect(statSync(t).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(t, 'PG_VERSION'))).toBe(true);
    expect(existsSync(path.join(t, 'postmaster.pid'))).toBe(false);
    passed(await restore());
    expect(initdbRuns()).toBe(1);
  }, 300_000);

  it('a template others may read is not used: initdb runs and the template is made again, private', async () => {
    const t = path.join(cache, 'backupctl', 'pg-template', templates()[0]!);
    chmodSync(t, 0o755);
    passed(await restore());
    expect(initdbRuns()).toBe(2);
    expect(statSync(t).mode & 0o777).toBe(0o700);
  }, 300_000);

  it('BACKUPCTL_PG_TEMPLATE=0 runs initdb every time', async () => {
    passed(await restore({ BACKUPCTL_PG_TEMPLATE: '0' }));
    expect(initdbRuns()).toBe(3);
  }, 300_000);
});
