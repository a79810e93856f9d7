// Input refused sends nothing, not even the look-up of a name (src/contract/context.ts, Handler.check):
// the built CLI against the emulator, each command given its job by NAME, with one bad flag, file or
// setting. Before the handlers' checks ran ahead of the look-up, each of these sent GET /v1/jobs (and
// `verify <job> <backup> --latest` looked the backup up and exited 5 instead of 2). export --file into a missing
// folder read the whole set-up (6 GETs) before it found it could not write.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { apiRequests, emulatorSession } from '../helpers/emulator.js';

const { emu, cli } = emulatorSession();
beforeEach(() => emu.clearRequests());
const scratch = mkdtempSync(path.join(tmpdir(), 'backupctl-checks-'));
writeFileSync(path.join(scratch, 'a-file'), 'not a folder');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const sent = () => apiRequests(emu).map((r) => `${r.method} ${r.path}`);

const cases: Array<{ args: string[]; code?: number; says: string; env?: Record<string, string> }> = [
  { args: ['verify', 'api postgres', 'abcdef12', '--latest'], says: 'error: give one selection: a backup id, --latest, or --since/--sample' },
  { args: ['verify', 'api postgres', '--output-file', path.join(scratch, 'missing', 'out.json')], says: 'for --output-file: cannot write in' },
  { args: ['verify', 'api postgres', '--healthcheck-url', 'ftp://example.test/ping'], says: 'invalid value for --healthcheck-url: must be an http(s) URL' },
  { args: ['verify', 'api postgres', '--lock', '..'], says: 'invalid value for --lock: ".."' },
  { args: ['verify', 'api postgres'], code: 3, env: { BACKUPCTL_VERIFY_MAX_RATIO: '0' }, says: 'BACKUPCTL_VERIFY_MAX_RATIO="0" is not a whole number (such as 1000) above 0' },
  { args: ['restore-test', 'api postgres'], code: 3, env: { BACKUPCTL_RESTORE_MAX_DISK: 'lots' }, says: 'BACKUPCTL_RESTORE_MAX_DISK="lots" is not a size (such as 2GiB) above 0' },
  { args: ['restore-test', 'api postgres', '--into', 'bogus://x'], says: 'invalid value for --into: must be a URL of a scratch server' },
  { args: ['restore-test', 'api postgres', '--engine', 'server'], says: '--engine server restores into --into URL' },
  { args: ['restore-test', 'api postgres', '--into', 'postgres://u@127.0.0.1/', '--into-file', path.join(scratch, 'none')], says: '--into and --into-file both name the scratch server: give one' },
  { args: ['anomalies', 'api postgres', '--ack', 'abcdef12', '--check'], says: '--ack and --check: give one' },
  { args: ['anomalies', 'api postgres', '-o', 'prometheus', '--json'], says: '--json and -o prometheus ask for two formats: give one' },
  { args: ['retention', 'api postgres', '--audit', '--what-if', 'daily=3'], says: '--audit compares recorded predictions: it takes no --what-if or --simulate' },
  { args: ['retention', 'api postgres', '--what-if', 'd7'], says: 'invalid value "d7" for --what-if' },
  { args: ['find', 'web-01 files', 'etc/*', '--jq', '.'], says: 'find streams its output: --jq is not taken here' },
  { args: ['ls', 'web-01 files', 'abcdef12', '--jq', '.'], says: 'ls streams its output: --jq is not taken here' },
  { args: ['diff', 'web-01 files', 'abcdef12', 'abcdef34', '--jq', '.'], says: 'diff streams its output: --jq is not taken here' },
  { args: ['restore-file', 'web-01 files', 'abcdef12', 'etc/hosts'], says: 'give one of --output - (one file to stdout) or --dir <folder>' },
  { args: ['jobs', 'backup', 'start', 'api postgres', '--healthcheck-url', 'ftp://example.test/ping'], says: 'invalid value for --healthcheck-url' },
  { args: ['jobs', 'create', '--server', 'web-01', '--name', 'x'], says: 'error: missing --recipe-id; --storage; --cron or --frequency' },
  { args: ['jobs', 'create', '--storage', 'Managed storage', '--timezone', 'UTC'], says: '--timezone, --run-offset and --retention-* describe the schedule of --cron or --frequency' },
  { args: ['export', '--file', path.join(scratch, 'missing', 'backups.yaml')], says: `for --file: cannot write in ${path.join(scratch, 'missing')} (ENOENT)` },
  { args: ['jobs', 'backup', 'download', 'api postgres', '--latest', '--dir', path.join(scratch, 'a-file')], says: `for --dir: ${path.join(scratch, 'a-file')} is not a folder` },
  { args: ['jobs', 'backup', 'download', 'api postgres', '--latest', '--dir', path.join(scratch, 'a-file', 'sub')], says: `for --dir: ${path.join(scratch, 'a-file')} is not a folder` },
  { args: ['verify', 'shop mysql', '--private-key', path.join(scratch, 'no-key.pem')], says: `invalid value "${path.join(scratch, 'no-key.pem')}" for --private-key: no such file` },
  { args: ['restore-test', 'shop mysql', '--private-key', scratch], says: `for --private-key: not a regular file` },
  { args: ['jobs', 'backup', 'download', 'shop mysql', '--latest', '--private-key', path.join(scratch, 'a-file'), '--private-key-pass-file', path.join(scratch, 'no-pass')], says: 'for --private-key-pass-file: no such file' },
  { args: ['jobs', 'backup', 'download', 'api postgres', '--latest', '--decrypt-with', 'cat', '--private-key', path.join(scratch, 'key')], says: '--decrypt-with and --private-key are two ways to decrypt: give one' },
  // The commands that read content take the same decryption flags, checked as verify's (issue 42.8).
  { args: ['ls', 'web-01 files', 'latest', '--private-key', path.join(scratch, 'no-key.pem')], says: `invalid value "${path.join(scratch, 'no-key.pem')}" for --private-key: no such file` },
  { args: ['find', 'web-01 files', '*.md', '--private-key', scratch], says: 'for --private-key: not a regular file' },
  { args: ['diff', 'web-01 files', 'abcdef12', 'latest', '--decrypt-with', ' '], says: 'for --decrypt-with' },
  { args: ['restore-file', 'web-01 files', 'latest', 'etc/hosts', '--output', '-', '--decrypt-with', 'cat', '--private-key', path.join(scratch, 'key')], says: '--decrypt-with and --private-key are two ways to decrypt: give one' },
  { args: ['scan', 'web-01 files', '--private-key', path.join(scratch, 'no-key.pem')], says: 'for --private-key: no such file' },
  { args: ['anomalies', 'web-01 files', '--private-key-pass-file', path.join(scratch, 'no-pass')], says: 'for --private-key-pass-file: no such file' },
];

describe('a handler refuses its input before a name is looked up', () => {
  for (const c of cases) {
    it(`backupctl ${c.args.join(' ')}${c.env ? ` (${Object.keys(c.env).join(', ')})` : ''}: exit ${c.code ?? 2}, nothing sent`, async () => {
      const r = await cli(c.args, c.env);
      expect(r.stderr).toContain(c.says);
      expect(r.code, r.stderr).toBe(c.code ?? 2);
      expect(r.stdout).toBe('');
      expect(sent()).toEqual([]);
    });
  }

  it('with good input the same commands look the name up first, then go on (the check is no stop of its own)', async () => {
    const out = path.join(scratch, 'verify.json');
    const r = await cli(['verify', 'api postgres', '--output-file', out, '--json', '--healthcheck-url', 'http://127.0.0.1:1/ping']);
    expect([0, 11]).toContain(r.code);
    expect(sent()[0]).toBe('GET /v1/jobs');
    expect(sent().length).toBeGreaterThan(2);
    // restore-file with --dir: the folder is checked (and made) before the look-up, used after it.
    mkdirSync(path.join(scratch, 'full'));
    writeFileSync(path.join(scratch, 'full', 'x'), 'x');
    emu.clearRequests();
    const full = await cli(['restore-file', 'web-01 files', 'abcdef12', 'etc/hosts', '--dir', path.join(scratch, 'full')]);
    expect(full.stderr).toContain('is not empty: give a new or empty folder');
    expect(full.code).toBe(2);
    expect(sent()).toEqual([]);
  });
});
