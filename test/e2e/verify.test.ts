// backupctl verify against the emulator's real backup files: every good file
// passes, every planted fault is caught with its reason and exit 11, a second
// run after the bytes changed says "changed since", and nothing reaches the
// disk or carries the token to the files host.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { runCli } from '../helpers/cli.js';
import { emulatorSession, fileRequests, startTestEmulator } from '../helpers/emulator.js';
import { inPty, screenLines } from '../helpers/pty.js';
import { startHostileServer } from '../helpers/servers.js';
import type { Emulator } from '../../src/emulator/index.js';
import { CORRUPTED_DEMO_JOB } from '../../src/emulator/verify-fixtures.js';

type Json = any;

const session = emulatorSession({ seed: 'demo', damagedFiles: true });
const { emu, env, cli } = session;
let cwd: string;
let jobs: Map<string, string>;

beforeAll(async () => {
  cwd = mkdtempSync(path.join(tmpdir(), 'backupctl-cwd-'));
  jobs = new Map((await session.jobs()).map((j) => [j.name, j.id]));
});
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});
beforeEach(() => {
  emu.clearRequests();
});

/** The good jobs of the demo and the format verify must find in their newest completed backup. */
const GOOD: Array<[string, string, string]> = [
  ['api postgres', 'pg_dump.gz', 'verified'],
  ['marketing site', 'zip', 'verified'],
  ['events mongodb', 'mongodump.gz', 'verified'],
  ['archive files', 'tar.gz', 'verified'],
  ['crm-db-failing', 'mysqldump.gz', 'verified'],
  // Encrypted bytes (OpenSSL "Salted__"): checked for size and hash only, so the backup is "unchecked", never "verified".
  ['web-01 files', 'openssl-enc', 'encrypted'],
  ['shop mysql', 'openssl-enc', 'encrypted'],
];

describe('verify: good backups', () => {
  it.each(GOOD)('%s: the newest backup verifies (%s), exit 0, no token on the files host', async (name, format, verdict) => {
    const r = await cli(['verify', name, '--latest', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    const overall = verdict === 'encrypted' ? 'unchecked' : 'passed';
    expect(doc).toMatchObject({ job: { id: jobs.get(name), name }, selection: 'latest', verdict: overall, summary: { backups: 1, files_failed: 0 } });
    const main = doc.backups[0].files[0];
    expect(main).toMatchObject({ verdict, format, reasons: verdict === 'encrypted' ? ['encrypted (OpenSSL enc, "Salted__"): size and hash only'] : expect.any(Array) });
    expect(main.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Every byte stated was read, and from the files server only, without the token.
    const files = fileRequests(emu);
    expect(files.length).toBe(doc.summary.files);
    for (const req of files) {
      expect(req.method).toBe('GET');
      expect(req.headers.authorization).toBeUndefined();
      expect(JSON.stringify(req.headers)).not.toContain(emu.token);
    }
    expect(doc.summary.bytes_read).toBe(doc.backups[0].files.reduce((n: number, f: Json) => n + f.bytes, 0));
  });

  it('a tar.gz shows its entries and their total size', async () => {
    const r = await cli(['verify', 'archive files', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const tar = JSON.parse(r.stdout).backups[0].files.find((f: Json) => f.format === 'tar.gz');
    expect(tar.entries).toBeGreaterThan(3);
    expect(tar.content_bytes).toBeGreaterThan(tar.bytes);
  });

  it('writes nothing to disk but the ledger and the catalog (0600 in $XDG_STATE_HOME/backupctl)', async () => {
    const r = await runCli(['verify', 'api postgres', '--latest'], { env: env(), cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
    // The ledger of hashes, the backup's mark (issue 29) and its fingerprint in the catalog (issue 33), all private.
    expect(readdirSync(path.join(session.state, 'backupctl')).filter((f) => !f.endsWith('.lock')).sort()).toEqual(['catalog', 'marks.json', 'verify-ledger.json']);
    expect(statSync(path.join(session.state, 'backupctl', 'marks.json')).mode & 0o777).toBe(0o600);
    const catalog = path.join(session.state, 'backupctl', 'catalog');
    expect(statSync(catalog).mode & 0o777).toBe(0o700);
    const [service] = readdirSync(catalog);
    const [backupDir] = readdirSync(path.join(catalog, service!));
    expect(statSync(path.join(catalog, service!, backupDir!, 'fingerprint.json')).mode & 0o777).toBe(0o600);
    const ledger = path.join(session.state, 'backupctl', 'verify-ledger.json');
    expect(statSync(ledger).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(ledger)).mode & 0o777).toBe(0o700);
    const data = JSON.parse(readFileSync(ledger, 'utf8'));
    const entries = Object.values(data.services).flatMap((files) => Object.values(files as Record<string, Json>));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((f: Json) => /^[0-9a-f]{64}$/.test(f.sha256))).toBe(true);
  });

  it('without XDG_STATE_HOME, the ledger is in ~/.local/state/backupctl', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'backupctl-home-'));
    try {
      const r = await runCli(['verify', 'api postgres', '--latest', '-q'], { env: { ...env(), XDG_STATE_HOME: undefined, HOME: home } });
      expect(r.code, r.stderr).toBe(0);
      const ledger = path.join(home, '.local', 'state', 'backupctl', 'verify-ledger.json');
      expect(statSync(ledger).mode & 0o777).toBe(0o600);
      const services = JSON.parse(readFileSync(ledger, 'utf8')).services;
      expect(Object.values(services).map((files) => Object.keys(files as object).length)).toEqual([1]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('table: one row per file and a summary line per backup; tsv rows', async () => {
    const r = await cli(['verify', 'api postgres', '--since', '2d', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    const [header] = r.stdout.split('\n');
    expect(header).toMatch(/^Verdict\s+Backup\s+File\s+Format\s+Size\s+Entries\s+SHA-256\s+Time\s+MiB\/s\s+Note$/);
    const rows = r.stdout.split('\n').filter((l) => /^verified\s/.test(l));
    const summaries = r.stdout.split('\n').filter((l) => /^Backup [0-9a-f-]{36} \(created .*\): passed, 1 file, /.test(l));
    expect(rows.length).toBeGreaterThan(4);
    expect(summaries.length).toBe(rows.length);
    // The table shortens the backup id and the sha256; tsv, for scripts, carries them whole.
    expect(rows[0]).toMatch(/^verified\s+[0-9a-f]{8}\s+\S+\.sql\.gz\s+pg_dump\.gz\s+[\d.]+ KiB\s+[0-9a-f]{12}\s/);
    const tsv = await cli(['verify', 'api postgres', '--latest', '-o', 'tsv']);
    const json = await cli(['verify', 'api postgres', '--latest', '--json']);
    const file = JSON.parse(json.stdout).backups[0].files[0];
    expect(tsv.stdout.split('\n')[0]!.split('\t').slice(0, 7)).toEqual(['verified', file.backup_id, file.name, 'pg_dump.gz', String(file.bytes), '', file.sha256]);
  });

  it('ndjson: a line per file, then a line per backup', async () => {
    const r = await cli(['verify', 'marketing site', '--since', '3d', '--sample', '2', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['file', 'file', 'backup', 'backup']);
    expect(new Set(lines.filter((l) => l.type === 'backup').map((l) => l.id)).size).toBe(2);
    // Each line is a record of `schema verify` with its type: a file, or a backup without its files.
    const schema = JSON.parse((await runCli(['schema', 'verify'])).stdout);
    expect(schema.description).toContain('-o ndjson');
    const backupSchema = schema.properties.backups.items;
    const { files: _files, ...backupProps } = backupSchema.properties;
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    const check = {
      file: ajv.compile(_files.items),
      backup: ajv.compile({ ...backupSchema, properties: backupProps, required: backupSchema.required.filter((k: string) => k !== 'files') }),
    };
    for (const { type, ...record } of lines) {
      const validate = check[type as 'file' | 'backup'];
      expect(validate(record), `${type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('-o prometheus: last verify, last success, bytes read, files failed per job', async () => {
    const r = await cli(['verify', 'events mongodb', '-o', 'prometheus']);
    expect(r.code, r.stderr).toBe(0);
    const id = jobs.get('events mongodb');
    const labels = `{job_id="${id}",job_name="events mongodb"}`;
    expect(r.stdout).toMatch(new RegExp(`^backupctl_verify_last_run_timestamp_seconds${labels.replace(/[{}]/g, '\\$&')} \\d+(\\.\\d+)?$`, 'm'));
    expect(r.stdout).toContain(`backupctl_verify_last_success_timestamp_seconds${labels} `);
    expect(r.stdout).toMatch(/^backupctl_verify_bytes_read\{.*\} [1-9]\d*$/m);
    expect(r.stdout).toContain(`backupctl_verify_files_failed${labels} 0\n`);
  });

  it('--check: a summary line per backup on stdout, nothing else; exit 0', async () => {
    const r = await cli(['verify', 'api postgres', '--latest', '--check']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Backup [0-9a-f-]{36} \(created [^)]+\): passed, 1 file, .* read in [\d.]+ s\n$/);
    expect(r.stderr).toBe('');
  });
});

describe('verify: planted faults', () => {
  const FAULTS: Array<[string, RegExp]> = [
    ['truncated', /^size: read \d+ bytes, fewer than the record states \(48 KB, .*; gzip: truncated \(the compressed stream ends early\)$/],
    ['flipped-byte', /^gzip: CRC-32 mismatch \(incorrect data check\): the data is damaged$/],
    ['bad-tar-header', /^tar: header checksum mismatch after 2 entries: the archive is damaged$/],
    ['no-end-marker', /^mysqldump: no end marker \("-- Dump completed"\): the dump did not finish$/],
    // Served with its Content-Length: refused before its body is read.
    ['wrong-size', /^size: the server announces 34304 bytes, more than the record states \(32 KB, 31500\.\.33280 bytes\); not read$/],
  ];
  let backups: Array<{ id: string; files: Array<{ name: string }> }>;
  beforeAll(async () => {
    backups = await session.backupsOf('damaged files');
  });

  it.each(FAULTS)('%s: exit 11 with the reason on stdout and stderr', async (fault, reason) => {
    const backup = backups.find((b) => b.files[0]!.name.startsWith(`${fault}-`))!;
    const r = await cli(['verify', 'damaged files', backup.id, '--json']);
    expect(r.code, r.stderr).toBe(11);
    const file = JSON.parse(r.stdout).backups[0].files[0];
    expect(file.verdict).toBe('failed');
    expect(file.reasons.join('; ')).toMatch(reason);
    expect(r.stderr).toContain(`error: 1 of 1 file of job damaged files failed verification\n  ${file.name} (backup ${backup.id}): ${file.reasons.join('; ')}`);
  });

  it('the demo job with the corrupted newest backup fails; its older one verifies', async () => {
    const r = await cli(['verify', CORRUPTED_DEMO_JOB, '--latest', '--json']);
    expect(r.code).toBe(11);
    const doc = JSON.parse(r.stdout);
    expect(doc.backups[0].files[0]).toMatchObject({ verdict: 'failed', format: 'gzip', reasons: [expect.stringMatching(/^gzip: CRC-32 mismatch/)] });
    // Its checksum list: every line parsed (the lines name files inside the archive, not the backup's files).
    expect(doc.backups[0].files[1]).toMatchObject({ verdict: 'verified', format: 'sha256sums' });
    const older = await cli(['verify', CORRUPTED_DEMO_JOB, '--since', '3d', '--json']);
    const verdicts = JSON.parse(older.stdout).backups.map((b: Json) => b.verdict);
    expect(verdicts[0]).toBe('failed');
    expect(verdicts.slice(1)).toEqual(verdicts.slice(1).map(() => 'passed'));
    expect(verdicts.length).toBeGreaterThan(1);
  });
});

describe('verify: selection and input', () => {
  it('exit 9 when nothing matches; exit 2 for two selections or a bad value, nothing sent', async () => {
    const none = await cli(['verify', 'api postgres', '--since', '2030-01-01T00:00:00Z']);
    expect(none.code).toBe(9);
    expect(none.stderr).toMatch(/has no backup with files matching since 2030-01-01/);
    emu.clearRequests();
    // By id: a name would be looked up (one GET /v1/jobs) before the flags are judged.
    const id = jobs.get('api postgres')!;
    const two = await cli(['verify', id, '--latest', '--sample', '2']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('give one selection');
    const bad = await cli(['verify', 'api postgres', '--parallel', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--parallel/);
    expect(emu.requests).toEqual([]);
  });

  it('an unknown job is exit 5', async () => {
    const r = await cli(['verify', 'no such job']);
    expect(r.code).toBe(5);
  });

  it('resumes a broken transfer with Range and still verifies', async () => {
    emu.setFaults([{ fault: 'truncated', path: '/files', count: 1 }]);
    try {
      const r = await cli(['verify', 'api postgres', '--latest', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const file = JSON.parse(r.stdout).backups[0].files[0];
      expect(file).toMatchObject({ verdict: 'verified', resumed: true });
      const gets = fileRequests(emu);
      expect(gets.length).toBe(2);
      expect(gets[1]!.headers.range).toMatch(/^bytes=\d+-$/);
    } finally {
      emu.setFaults([]);
    }
  });
});

describe('verify: for cron', () => {
  it('--check --healthcheck-url --lock: /start then the URL when verified, /fail with exit 11 when not; the lock is released', async () => {
    const http = await import('node:http');
    const pings: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        pings.push(`${req.url} ${body}`.trim());
        res.end('OK');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/ping/v1`;
    try {
      const good = await cli(['verify', 'api postgres', '--latest', '--check', '--lock', 'verify-test', '--healthcheck-url', url]);
      expect(good.code, good.stderr).toBe(0);
      expect(pings).toEqual(['/ping/v1/start', '/ping/v1']);
      pings.length = 0;
      const bad = await cli(['verify', CORRUPTED_DEMO_JOB, '--latest', '--check', '--lock', 'verify-test', '--healthcheck-url', url]);
      expect(bad.code).toBe(11);
      expect(bad.stdout).toMatch(/^Backup [0-9a-f-]{36} \(created [^)]+\): FAILED, 1 of 2 files failed, /);
      expect(pings[0]).toBe('/ping/v1/start');
      expect(pings[1]).toMatch(/^\/ping\/v1\/fail exit 11: 1 of 2 files of job git server failed verification/);
      // The lock lives in the state folder and is released after each run.
      expect(readdirSync(path.join(session.state, 'backupctl')).filter((f) => f.endsWith('.lock'))).toEqual([]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('verify: the ledger', () => {
  let changing: Emulator;
  let ledgerState: string;
  beforeAll(async () => {
    changing = await startTestEmulator({ seed: 'demo', changingFiles: true });
    ledgerState = mkdtempSync(path.join(tmpdir(), 'backupctl-ledger-'));
  });
  afterAll(async () => {
    await changing.close();
    rmSync(ledgerState, { recursive: true, force: true });
  });

  it('a second verify that reads other bytes fails with "changed since <date>"', async () => {
    const run = () =>
      runCli(['verify', 'api postgres', '--latest', '--json'], {
        env: { BACKUPCTL_BASE_URL: changing.url, BACKUPCTL_TOKEN: changing.token, BACKUPCTL_CONFIG_DIR: session.cfg.dir, XDG_STATE_HOME: ledgerState },
      });
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    const seen = JSON.parse(first.stdout).backups[0].files[0];
    expect(seen.first_seen).toMatch(/^\d{4}-\d\d-\d\dT/);
    const second = await run();
    expect(second.code).toBe(11);
    const file = JSON.parse(second.stdout).backups[0].files[0];
    expect(file.sha256).not.toBe(seen.sha256);
    // The bytes are still a valid dump of the right size: only the ledger can tell.
    expect(file.format).toBe('pg_dump.gz');
    expect(file.reasons).toEqual([`changed since ${seen.first_seen}: the bytes differ from those first verified then (sha256 ${seen.sha256.slice(0, 12)}…)`]);
    // The first hash stays the reference.
    const third = await run();
    expect(JSON.parse(third.stdout).backups[0].files[0].reasons[0]).toContain(`changed since ${seen.first_seen}`);
  });

  it('the ledger is kept per service: the same backup id on another service is not "changed since"', async () => {
    // Two services seeded alike hold backups of the same ids. The changing one serves other bytes
    // at each read: one read with a throwaway state moves them on, the next is recorded.
    const other = await startTestEmulator({ seed: 'demo' });
    const state = mkdtempSync(path.join(tmpdir(), 'backupctl-ledger-two-'));
    const throwaway = mkdtempSync(path.join(tmpdir(), 'backupctl-ledger-throwaway-'));
    try {
      const on = (emu: Emulator, xdg: string) =>
        runCli(['verify', 'api postgres', '--latest', '--json'], {
          env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: session.cfg.dir, XDG_STATE_HOME: xdg },
        });
      expect((await on(changing, throwaway)).code).toBe(0);
      const recorded = await on(changing, state);
      expect(recorded.code, recorded.stderr).toBe(0);
      const here = JSON.parse(recorded.stdout).backups[0];
      const there = await on(other, state);
      expect(there.code, there.stdout).toBe(0);
      const theirs = JSON.parse(there.stdout).backups[0];
      // Same backup id, other bytes, other service: each service's hashes are its own.
      expect(theirs.id).toBe(here.id);
      expect(theirs.files[0].sha256).not.toBe(here.files[0].sha256);
      expect(theirs.files[0].reasons ?? []).toEqual([]);
      const ledger = JSON.parse(readFileSync(path.join(state, 'backupctl', 'verify-ledger.json'), 'utf8'));
      expect(Object.keys(ledger.services)).toHaveLength(2);
    } finally {
      await other.close();
      rmSync(state, { recursive: true, force: true });
      rmSync(throwaway, { recursive: true, force: true });
    }
  });

  it('a broken ledger is exit 3 and left as it is', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-badledger-'));
    try {
      const { mkdirSync, writeFileSync } = await import('node:fs');
      mkdirSync(path.join(dir, 'backupctl'));
      writeFileSync(path.join(dir, 'backupctl', 'verify-ledger.json'), '{"version":1,"files":');
      const r = await cli(['verify', 'api postgres'], { XDG_STATE_HOME: dir });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('is broken');
      expect(r.stderr).toMatch(/\n  Move it aside to start a new ledger/); // indented like every other hint (issue 25 §12)
      expect(readFileSync(path.join(dir, 'backupctl', 'verify-ledger.json'), 'utf8')).toBe('{"version":1,"files":');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('verify: on a terminal', () => {
  let big: Emulator;
  let ptyState: string;
  beforeAll(async () => {
    big = await startTestEmulator({ seed: 'empty', bigFile: 64 * 1024 * 1024 });
    ptyState = mkdtempSync(path.join(tmpdir(), 'backupctl-pty-'));
  });
  afterAll(async () => {
    await big.close();
    rmSync(ptyState, { recursive: true, force: true });
  });
  const ptyEnv = (term: string) => ({ BACKUPCTL_BASE_URL: big.url, BACKUPCTL_TOKEN: big.token, BACKUPCTL_CONFIG_DIR: session.cfg.dir, XDG_STATE_HOME: ptyState, TERM: term });
  /** Every state of the bar the terminal was sent (it redraws its line with \r). */
  const bars = (output: string) => output.split(/[\r\n]+/).map((l) => l.replace(/\u001b\[K/g, '')).filter((l) => l.startsWith('['));

  it('a progress bar on stderr with share, files, bytes, throughput and time left; the results on stdout', async () => {
    // stdout goes through sed, which marks its lines; the bar is drawn on the terminal (stderr) itself.
    const r = await inPty(['verify', 'big file', '--latest', '-o', 'table'], ptyEnv('xterm-256color'), { pipe: "sed 's/^/OUT: /'", timeoutMs: 60_000 });
    expect(r.code, r.output).toBe(0);
    const drawn = bars(r.output);
    // While it reads: a share below 100%, no file done yet, bytes, a rate and the time left.
    expect(drawn.some((l) => /^\[#*-+\] \d{1,2}%  0\/1 files  [\d.]+ [KM]iB  [\d.]+ ([KMG]i)?B\/s  ETA (<1s|\d+s|\d+m\d\ds)$/.test(l)), drawn.join('\n')).toBe(true);
    // Its last state stays on screen: everything read, no time left to show.
    expect(drawn.at(-1)).toMatch(/^\[#{30}\] 100%  1\/1 files  64 MiB  [\d.]+ ([KMG]i)?B\/s$/);
    const lines = screenLines(r.output);
    expect(lines.some((l) => /^OUT: verified\s+[0-9a-f]{8}\s+big-file-\S+\.tar\.gz\s+tar\.gz\s+64 MiB\s/.test(l))).toBe(true);
    expect(lines.some((l) => /^OUT: Backup [0-9a-f-]{36} \(created [^)]+\): passed, 1 file, 64 MiB read in /.test(l))).toBe(true);
    expect(lines.filter((l) => l.startsWith('[')).every((l) => !l.startsWith('OUT: '))).toBe(true);
  }, 90_000);

  it('on a narrow terminal the table gives way elsewhere: the short backup id and sha256 are never cut further', async () => {
    const r = await inPty(['verify', 'big file', '--latest'], ptyEnv('xterm-256color'), { stty: 'cols 80 rows 40', timeoutMs: 60_000 });
    expect(r.code, r.output).toBe(0);
    const row = screenLines(r.output).find((l) => l.startsWith('verified '))!;
    expect(row.length).toBeLessThanOrEqual(80);
    // Verdict, backup, file, format, size, entries, sha256 (columns on the right may have gone).
    const [, backup, , , , , sha] = row.split(/\s{2,}/);
    expect([backup, sha], row).toEqual([expect.stringMatching(/^[0-9a-f]{8}$/), expect.stringMatching(/^[0-9a-f]{12}$/)]);
  }, 90_000);

  it('no bar with TERM=dumb, with --check, or with -q', async () => {
    for (const [args, term] of [
      [['verify', 'big file'], 'dumb'],
      [['verify', 'big file', '--check'], 'xterm-256color'],
      [['verify', 'big file', '-q'], 'xterm-256color'],
    ] as const) {
      const r = await inPty([...args], ptyEnv(term), { timeoutMs: 60_000 });
      expect(r.code, r.output).toBe(0);
      expect(bars(r.output), `${args.join(' ')} TERM=${term}`).toEqual([]);
      expect(r.output).not.toContain('\u001b[K');
    }
  }, 180_000);
});

describe('verify: a files host that sends more than the record states', () => {
  const JOB = '5f0c8a4e-1b2d-4c3e-8f9a-0b1c2d3e4f50';
  const BACKUP = '6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
  /** An API with one job and one backup whose one file ("12.5 KB") the same server streams as `files` says. */
  async function hostileService(files: (res: import('node:http').ServerResponse) => void) {
    let sent = 0;
    const srv = await startHostileServer((req, res) => {
      const json = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === `/v1/jobs/${JOB}`) return json({ data: { id: JOB, name: 'hostile' } });
      if (req.url?.startsWith(`/v1/jobs/${JOB}/backups`)) {
        const file = { name: 'site.tar.gz', size: '12.5 KB', url: `${srv.url}/files/site.tar.gz?signature=x` };
        return json({ data: [{ id: BACKUP, job_id: JOB, status: 'completed', created_at: '2026-03-01T02:00:00Z', files: [file] }], meta: { current_page: 1, last_page: 1 } });
      }
      if (req.url?.startsWith('/files/')) {
        const write = res.write.bind(res);
        res.write = ((chunk: Buffer, ...rest: never[]) => {
          sent += chunk.length;
          return write(chunk, ...rest);
        }) as typeof res.write;
        return files(res);
      }
      res.writeHead(404).end();
    });
    return { srv, sent: () => sent };
  }
  const run = (url: string) =>
    runCli(['verify', JOB, '--latest', '--json'], { env: { BACKUPCTL_BASE_URL: url, BACKUPCTL_TOKEN: 'tok', BACKUPCTL_CONFIG_DIR: session.cfg.dir, XDG_STATE_HOME: session.state }, timeoutMs: 30_000 });

  it('an endless stream is stopped once it passes the stated size (12.5 KB: at most 12851 bytes): exit 11, size reason', async () => {
    const { srv, sent } = await hostileService((res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      // At most 256 MB, and only while the client reads.
      const pump = () => {
        while (sent() < 256 * 1024 * 1024) if (!res.write(chunk)) return void res.once('drain', pump);
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    try {
      const started = Date.now();
      const r = await run(srv.url);
      expect(r.code, r.stderr).toBe(11);
      const file = JSON.parse(r.stdout).backups[0].files[0];
      expect(file).toMatchObject({ verdict: 'failed', reasons: [expect.stringMatching(/^size: read more than the record states \(12\.5 KB, 12450\.\.12851 bytes\); stopped after \d+ bytes$/)] });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(sent()).toBeLessThan(16 * 1024 * 1024);
      expect(srv.received.filter((q) => q.url.startsWith('/files/'))).toHaveLength(1);
    } finally {
      await srv.close();
    }
  });

  it('a Content-Length over the stated size is refused before the body is read', async () => {
    const { srv } = await hostileService((res) => {
      res.writeHead(200, { 'content-length': '2000000000' });
      res.write(Buffer.alloc(1000));
    });
    try {
      const r = await run(srv.url);
      expect(r.code, r.stderr).toBe(11);
      const file = JSON.parse(r.stdout).backups[0].files[0];
      expect(file).toMatchObject({ verdict: 'failed', bytes: 0, sha256: null, reasons: ['size: the server announces 2000000000 bytes, more than the record states (12.5 KB, 12450..12851 bytes); not read'] });
      expect(srv.received.filter((q) => q.url.startsWith('/files/'))).toHaveLength(1);
    } finally {
      await srv.close();
    }
  });
});

describe('verify: read by a person (issue 25 §10)', () => {
  it('-q prints the id of each backup checked, whole, not file names', async () => {
    const json = JSON.parse((await cli(['verify', 'api postgres', '--since', '2d', '--json'])).stdout);
    const r = await cli(['verify', 'api postgres', '--since', '2d', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(json.backups.map((b: Json) => `${b.id}\n`).join(''));
    expect(json.backups.length).toBeGreaterThan(1);
  });

  it('the summary gives the creation time as date, UTC time and age, never the raw ISO text', async () => {
    const r = await cli(['verify', 'api postgres', '--latest', '--check']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Backup [0-9a-f-]{36} \(created \d{4}-\d\d-\d\d \d\d:\d\d UTC, (\d+ \w+ ago|just now)\): passed, 1 file, [\d.]+ KiB read in [\d.]+ s\n$/);
    expect(r.stdout).not.toMatch(/\d{4}-\d\d-\d\dT\d/);
  });

  it('a file refused for its size shows "not read", not format "unknown" and "0 B"', async () => {
    const list = await session.backupsOf('damaged files');
    const backup = list.find((b) => b.files[0]!.name.startsWith('wrong-size-'))!;
    const json = await cli(['verify', 'damaged files', backup.id, '--json']);
    expect(JSON.parse(json.stdout).backups[0].files[0]).toMatchObject({ format: 'not-read', bytes: 0 });
    const table = await cli(['verify', 'damaged files', backup.id, '-o', 'table']);
    expect(table.code).toBe(11);
    const row = table.stdout.split('\n').find((l) => l.startsWith('failed '))!;
    expect(row).toMatch(/^failed\s+[0-9a-f]{8}\s+wrong-size-\S+\s+not read\s+not read\s/);
    expect(row).not.toMatch(/unknown|\b0 B\b/);
  });
});
