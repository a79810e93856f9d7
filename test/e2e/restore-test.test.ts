// backupctl restore-test against the emulator's real backup files, through the
// built CLI: file archives extracted (and --exec run inside), the mongodump
// archive parsed document by document, every output format, the exit codes,
// the ledger, the `../` entry refused with nothing written outside, and
// Ctrl-C / SIGTERM in the middle leaving no temporary folder behind.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { apiRequests, emulatorSession, fileRequests, startTestEmulator } from '../helpers/emulator.js';
import { startCli, until } from '../helpers/spawn.js';
import type { Emulator } from '../../src/emulator/index.js';
import { CORRUPTED_DEMO_JOB, UNSAFE_ARCHIVE_JOB } from '../../src/emulator/verify-fixtures.js';

type Json = any;

/** The CLI's TMPDIR: extraction folders are made here, and must be gone afterwards. */
let tmp: string;
const MARKS = () => path.join(session.state, 'backupctl', 'marks.json');
/** The restore-test marks of a backup (issue 29: kept per service and backup in marks.json). */
const markOf = (backupId: string) =>
  (Object.values(JSON.parse(readFileSync(MARKS(), 'utf8')).services) as Json[]).map((svc) => svc.backups[backupId]).find(Boolean)?.restore_test;

/**
 * The emulator's clock, pinned: which backup is the newest, and so its size and how many documents the
 * mongodump archive holds, follows the schedules from "now" (at 06:30 the newest events mongodb backup
 * held 96 documents, not more than 100). The tests must hold at any hour (issue 29).
 */
const EMULATOR_NOW = Date.parse('2026-11-04T12:00:00Z');

const session = emulatorSession({ seed: 'demo', archiveFaults: true, now: EMULATOR_NOW, env: () => ({ TMPDIR: tmp }) });
const { emu, env, cli } = session;

beforeAll(() => {
  // A folder inside a folder: what a `../` entry would write lands in the outer one.
  tmp = path.join(mkdtempSync(path.join(tmpdir(), 'backupctl-rt-')), 'tmp');
  mkdirSync(tmp);
});
afterAll(() => {
  if (tmp) rmSync(path.dirname(tmp), { recursive: true, force: true });
});
beforeEach(() => {
  emu.clearRequests();
  expect(readdirSync(tmp)).toEqual([]);
});

describe('restore-test: file archives', () => {
  it('a tar.gz is extracted, counted and --exec runs inside; the folder is removed; the ledger records it', async () => {
    const r = await cli(['restore-test', 'archive files', '--exec', 'test -d data && test -n "$(ls data)"', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ job: { name: 'archive files' }, selection: 'latest', verdict: 'passed', summary: { backups: 1, files: 2, files_failed: 0 } });
    const [tar, sums] = doc.backups[0].files;
    expect(tar).toMatchObject({ kind: 'tar', verdict: 'extracted', engine: { mode: 'extract', product: 'tar' }, check: { verdict: 'verified', format: 'tar.gz' }, failure: null });
    expect(tar.files).toBeGreaterThan(3);
    expect(tar.bytes).toBeGreaterThan(1000);
    expect(tar.exec).toMatchObject({ exit_code: 0, timed_out: false });
    // The checksum list is said, not hidden, and does not fail the test.
    expect(sums).toMatchObject({ kind: 'sha256sums', verdict: 'not-restorable' });
    expect(doc.backups[0].total_seconds).toBeGreaterThan(0);
    // Read through the signed URLs, without the token.
    for (const req of fileRequests(emu)) expect(req.headers.authorization).toBeUndefined();
    expect(readdirSync(tmp)).toEqual([]);
    const entry = markOf(doc.backups[0].id);
    expect(entry.last).toMatchObject({ state: 'passed', tables: 0, engine: 'tar', exit_code: 0 });
    expect(entry.conclusive).toEqual(entry.last);
  });

  it('a zip is extracted; -o md is a record for an audit folder', async () => {
    const r = await cli(['restore-test', 'marketing site', '-o', 'md']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^# Restore test: marketing site\n/);
    expect(r.stdout).toContain('- Verdict: **passed**');
    expect(r.stdout).toMatch(/- Time to read: [\d.]+ s; time to restore: [\d.]+ s; recovery time: [\d.]+ s/);
    expect(r.stdout).toMatch(/\| extracted \| marketing-site-.*\.zip \| zip \|  \| \d+ files \|/);
  });

  it('--exec failing: exit 14, the command and its exit in the report; the ledger records the failure', async () => {
    const r = await cli(['restore-test', 'archive files', '--exec', 'echo missing index >&2; exit 3', '--json']);
    expect(r.code).toBe(14);
    const doc = JSON.parse(r.stdout);
    expect(doc.verdict).toBe('failed');
    expect(doc.backups[0].files[0]).toMatchObject({ verdict: 'failed', failure: { message: '--exec exited with 3' }, exec: { exit_code: 3, output_tail: 'missing index' } });
    expect(r.stderr).toContain('error: the restore test of job archive files failed: --exec exited with 3');
    expect(r.stderr).toContain('--exec exited with 3; its output ends: missing index');
    // The backup's mark is now this failure (the latest test that looked at the data).
    const entry = markOf(doc.backups[0].id);
    expect(entry.last).toMatchObject({ state: 'failed', reason: '--exec exited with 3', exit_code: 14 });
    expect(entry.conclusive).toEqual(entry.last);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a tar with a `../` entry is refused: exit 14, nothing written outside the folder, the folder removed', async () => {
    const r = await cli(['restore-test', UNSAFE_ARCHIVE_JOB, '--exec', 'true', '--json']);
    expect(r.code, r.stderr).toBe(14);
    const file = JSON.parse(r.stdout).backups[0].files[0];
    // verify's checks pass (the bytes are intact); the restore refuses the path.
    expect(file).toMatchObject({ kind: 'tar', verdict: 'failed', check: { verdict: 'verified' }, exec: null });
    expect(file.failure.message).toBe('refused the entry "../escaped-by-archive.txt": a path with ".." that leads outside the folder');
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(path.dirname(tmp))).toEqual(['tmp']);
    expect(existsSync(path.join(tmpdir(), 'escaped-by-archive.txt'))).toBe(false);
  });

  it('--keep keeps the extracted folder and says where', async () => {
    const r = await cli(['restore-test', 'archive files', '--keep', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const kept = readdirSync(tmp);
    expect(kept).toHaveLength(1);
    const where = path.join(tmp, kept[0]!, 'files');
    expect(r.stderr).toContain(`kept in ${where}`);
    expect(readdirSync(path.join(where, 'data')).length).toBeGreaterThan(0);
    rmSync(path.join(tmp, kept[0]!), { recursive: true, force: true });
  });
});

describe('restore-test: the mongodump archive', () => {
  it('every document parsed and counted per collection: structure checked, not restored', async () => {
    const r = await cli(['restore-test', 'events mongodb', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(r.stdout).backups[0].files[0];
    expect(file).toMatchObject({ kind: 'mongo-archive', verdict: 'structure-checked', engine: { mode: 'bson' }, check: { verdict: 'verified', format: 'mongodump.gz' } });
    expect(file.tables.map((t: Json) => t.table.split('.')[1])).toEqual(['users', 'sessions', 'pageviews', 'orders']);
    for (const t of file.tables) expect(t.restored).toBe(t.expected);
    expect(file.rows).toBe(file.tables.reduce((n: number, t: Json) => n + t.expected, 0));
    expect(file.rows).toBeGreaterThan(100);
  });

  it('a transfer broken midway is resumed with Range; the archive still parses whole', async () => {
    emu.setFaults([{ fault: 'truncated', path: '/files', count: 1 }]);
    try {
      const r = await cli(['restore-test', 'events mongodb', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const file = JSON.parse(r.stdout).backups[0].files[0];
      expect(file).toMatchObject({ verdict: 'structure-checked', resumed: true, failure: null });
      const gets = fileRequests(emu);
      expect(gets.length).toBe(2);
      expect(gets[1]!.headers.range).toMatch(/^bytes=\d+-$/);
    } finally {
      emu.setFaults([]);
    }
  });

  it('-o table: a row per file, then the summary line: structure-only, no recovery time (issue 29)', async () => {
    const r = await cli(['restore-test', 'events mongodb', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Verdict\s+File\s+Engine\s+Tables\s+Rows\s+Size\s+Read\s+Restore\s+Note/);
    expect(r.stdout).toMatch(/structure-checked\s+events-mongodb-\S+\.archive\.gz\s+bson\s+4\s+\d+/);
    expect(r.stdout).toContain('structure checked, not restored');
    expect(r.stdout).toMatch(/Backup [0-9a-f-]{36} \(created [^)]+\): restore test structure-only, 4 collections, \d+ documents parsed \(structure checked, not restored: no recovery time\); read in [\d.]+ s/);
    expect(r.stdout).not.toMatch(/recovery time [\d.]/);
  });

  it('-q prints the id of the backup restored (whole), as verify -q does: not file names', async () => {
    const r = await cli(['restore-test', 'events mongodb', '-q']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse((await cli(['restore-test', 'events mongodb', '--json'])).stdout);
    expect(r.stdout).toBe(`${doc.backups[0].id}\n`);
  });

  it('-o prometheus: the state, rows per job; no success and no duration for a structure-only test (issue 29)', async () => {
    const r = await cli(['restore-test', 'events mongodb', '-o', 'prometheus']);
    expect(r.code, r.stderr).toBe(0);
    const id = JSON.parse((await cli(['jobs', 'get', 'events mongodb', '--json'])).stdout).id;
    const labels = `{job_id="${id}",job_name="events mongodb"}`;
    expect(r.stdout).toMatch(new RegExp(`^backupctl_restore_test_last_run_timestamp_seconds${labels.replace(/[{}]/g, '\\$&')} \\d+(\\.\\d+)?$`, 'm'));
    expect(r.stdout).toContain(`backupctl_restore_test_state{job_id="${id}",job_name="events mongodb",state="structure-only"} 1\n`);
    expect(r.stdout).not.toMatch(/^backupctl_restore_test_(last_success_timestamp|duration)_seconds/m);
    expect(r.stdout).toMatch(new RegExp(`^backupctl_restore_test_rows\\{job_id="${id}",job_name="events mongodb"\\} \\d+$`, 'm'));
    expect(r.stdout).toContain('# TYPE backupctl_restore_test_rows gauge');
  });

  it('-o ndjson: each file then the backup, each a record of `schema restore-test`', async () => {
    const r = await cli(['restore-test', 'archive files', '-o', 'ndjson', '--exec', 'true']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['file', 'file', 'backup']);
    const schemaRun = await runCli(['schema', 'restore-test']);
    expect(schemaRun.code).toBe(0);
    const schema = JSON.parse(schemaRun.stdout);
    expect(schema.description).toContain('-o ndjson');
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    const backupSchema = schema.properties.backups.items;
    const { files: fileList, ...backupProps } = backupSchema.properties;
    const check = {
      file: ajv.compile(fileList.items),
      backup: ajv.compile({ ...backupSchema, properties: backupProps, required: backupSchema.required.filter((k: string) => k !== 'files') }),
    };
    for (const { type, ...record } of lines) {
      const validate = check[type as 'file' | 'backup'];
      expect(validate(record), `${type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    // --json validates against the whole schema.
    const whole = await cli(['restore-test', 'events mongodb', '--json']);
    const validate = ajv.compile(schema);
    expect(validate(JSON.parse(whole.stdout)), ajv.errorsText(validate.errors)).toBe(true);
  });
});

describe('restore-test: exit codes', () => {
  it('a file that fails verify\'s checks on the way: exit 11, nothing restored from it', async () => {
    const r = await cli(['restore-test', CORRUPTED_DEMO_JOB, '--json']);
    expect(r.code).toBe(11);
    const file = JSON.parse(r.stdout).backups[0].files[0];
    expect(file.check).toMatchObject({ verdict: 'failed' });
    expect(file.verdict).toBe('failed');
    expect(r.stderr).toContain('failed the checks on the way');
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('--assert on a job whose backups hold no SQL: a usage error (exit 2), no file read', async () => {
    const r = await cli(['restore-test', 'archive files', '--assert', 'select 1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --assert runs SQL in a restored database, but job archive files backs up files (a file archive): check it with --exec instead');
    expect(fileRequests(emu)).toEqual([]);
  });

  it('bad flags: exit 2 naming the flag and its values, nothing sent', async () => {
    // By id: a name would be looked up first.
    const id = JSON.parse((await cli(['jobs', 'get', 'archive files', '--json'])).stdout).id;
    emu.clearRequests();
    for (const [args, message] of [
      [['--engine', 'cloud'], /--engine.*auto, server, local, embedded|auto.*server.*local.*embedded/],
      [['--into', 'http://user:s3cret@db/'], /invalid value for --into: must be a URL of a scratch server/],
      [['--engine', 'server'], /--engine server restores into --into URL/],
      [['--exec', 'true', '--assert', 'select 1'], /--exec .* and --assert .* give one/],
    ] as Array<[string[], RegExp]>) {
      const r = await cli(['restore-test', id, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr + r.stdout).not.toContain('s3cret');
    }
    expect(apiRequests(emu)).toEqual([]);
  });

  it('an encrypted backup cannot be restored: exit 18 (unchecked, not failed: not 14), said plainly', async () => {
    const r = await cli(['restore-test', 'web-01 files', '--json']);
    expect(r.code).toBe(18);
    const doc = JSON.parse(r.stdout);
    expect(doc.backups[0].files.every((f: Json) => f.verdict === 'not-restorable')).toBe(true);
    expect(doc.backups[0].reason).toMatch(/^nothing in backup .* could be restored \(encrypted/);
  });
});

describe('restore-test: --check for cron', () => {
  it('one summary line on stdout; the cron helper takes --lock', async () => {
    const lock = path.join(session.state, 'rt.lock');
    // Issue 29: --check passes on passed only; a mongodump (structure-only) needs --allow-unchecked.
    const r = await cli(['restore-test', 'events mongodb', '--check', '--allow-unchecked', '--lock', lock]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(/^Backup \S+ \(created [^)]+\): restore test structure-only, 4 collections/);
  });
});

describe('restore-test: --healthcheck-url through the cron helper', () => {
  it('pings /start, then the URL on success or /fail with the exit code', async () => {
    const pings: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        pings.push(`${req.method} ${req.url} ${body}`.trim());
        res.end('OK');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/check-uuid`;
    try {
      expect((await cli(['restore-test', 'archive files', '--exec', 'true', '--check', '--healthcheck-url', url])).code).toBe(0);
      expect(pings).toEqual(['POST /check-uuid/start', 'POST /check-uuid']);
      pings.length = 0;
      expect((await cli(['restore-test', 'archive files', '--exec', 'false', '--check', '--healthcheck-url', url])).code).toBe(14);
      expect(pings[0]).toBe('POST /check-uuid/start');
      expect(pings[1]).toMatch(/^POST \/check-uuid\/fail exit 14: the restore test of job archive files failed: --exec exited with 1$/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('restore-test: Ctrl-C while --exec runs', () => {
  it('the command is killed, the folder removed, exit 130', async () => {
    const marker = path.join(session.state, 'exec.pid');
    // In the command itself: --exec gets only a few variables (PATH, HOME, LANG, ...), never the caller's others.
    const run = startCli(['restore-test', 'archive files', '--exec', `echo $$ > "${marker}"; exec sleep 30`], env());
    await until(() => existsSync(marker) && readFileSync(marker, 'utf8').endsWith('\n'), 20_000);
    const pid = Number(readFileSync(marker, 'utf8'));
    expect(pid).toBeGreaterThan(1);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(readdirSync(tmp)).toEqual([]);
    // Interrupted is not failed: nothing recorded for it.
    const reasons = existsSync(MARKS()) ? JSON.stringify(JSON.parse(readFileSync(MARKS(), 'utf8'))) : '';
    expect(reasons).not.toMatch(/signal/);
    // The child it started (found by its pid, not by name) is gone.
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});

describe('restore-test: Ctrl-C and SIGTERM in the middle', () => {
  let big: Emulator;
  beforeAll(async () => {
    // A 1 GiB .tar.gz made while it is sent: its extraction takes seconds, long enough to be interrupted
    // on any machine (each test stops it within a second, so no more than that is ever written).
    big = await startTestEmulator({ seed: 'empty', bigFile: 1024 * 1024 * 1024 });
  });
  afterAll(async () => {
    await big.close();
  });

  it('--timeout: a test that takes longer fails (exit 14), the folder removed', async () => {
    const r = await cli(['restore-test', 'big file', '--timeout', '1s', '--json'], { BACKUPCTL_BASE_URL: big.url, BACKUPCTL_TOKEN: big.token });
    expect(r.code, r.stderr).toBe(14);
    const b = JSON.parse(r.stdout).backups[0];
    expect(b.reason).toBe('the restore test took longer than --timeout (1 s)');
    expect(readdirSync(tmp)).toEqual([]);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while extracting: exit %i, the temporary folder removed', async (signal, code) => {
    const run = startCli(['restore-test', 'big file'], { ...env(), BACKUPCTL_BASE_URL: big.url, BACKUPCTL_TOKEN: big.token });
    await until(() => readdirSync(tmp).some((n) => n.startsWith('backupctl-restore-')), 20_000);
    // Some bytes on disk first: the extraction is under way.
    await until(() => {
      const folder = readdirSync(tmp)[0];
      return folder !== undefined && existsSync(path.join(tmp, folder, 'files', 'data'));
    }, 20_000);
    run.child.kill(signal);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(code);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('docs/restore-tests.md', () => {
  /**
   * The `backupctl ...` lines of its sh blocks, split as sh would split them (double quotes only). A line
   * with a comment (`# not run: ...`, `# exit N`) is left to doc-examples.test.ts, which reads those.
   */
  const examples = () => {
    const text = readFileSync(path.join(ROOT, 'docs', 'restore-tests.md'), 'utf8');
    const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    return blocks
      .flatMap((b) => b.split('\n'))
      .filter((l) => l.startsWith('backupctl ') && !/\s#/.test(l))
      .map((l) => [...l.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(1));
  };

  it('every example runs against the demo emulator, exit 0', async () => {
    const list = examples();
    expect(list.length).toBeGreaterThan(4);
    const cwd = mkdtempSync(path.join(tmpdir(), 'backupctl-docs-'));
    try {
      for (const args of list) {
        const r = await runCli(args, { env: env(), cwd, timeoutMs: 40_000 });
        expect(r.code, `backupctl ${args.join(' ')}: ${r.stderr}`).toBe(0);
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    // Each example starts a private server (PostgreSQL as nobody, MariaDB): 30 s did not hold on a loaded machine.
  }, 180_000);
});
