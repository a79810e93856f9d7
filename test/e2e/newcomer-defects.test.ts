// The defects a newcomer's trial found (issue 16 §2), each as the user met it:
// the built CLI against the emulator, asserting the request that went out (or
// that nothing did), the bytes on stdout and stderr, and the exit code.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, runCli } from '../helpers/cli.js';
import { apiFetch, apiRequests, startTestEmulator, withEmulatorCli } from '../helpers/emulator.js';
import { inPty, screenLines } from '../helpers/pty.js';
import type { Emulator } from '../../src/emulator/index.js';
import { EXIT_CODES } from '../../src/cli/help-topics.js';

const JOB = '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c';

let dir: string;
const { emu, env, cli, sent, session } = withEmulatorCli();

function file(name: string, text: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

/** Exit 2, nothing sent, and stderr naming every one of `names`. */
async function refused(args: string[], ...names: string[]): Promise<string> {
  emu.clearRequests();
  const r = await cli(args);
  expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(2);
  expect(sent()).toHaveLength(0);
  expect(r.stdout).toBe('');
  for (const n of names) expect(r.stderr).toContain(n);
  return r.stderr;
}

async function firstJobId(): Promise<string> {
  const res = await apiFetch(emu, '/v1/jobs?page_size=100');
  return ((await res.json()) as { data: Array<{ id: string }> }).data[0]!.id;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'backupctl-defects-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => emu.clearRequests());

const hasCurl = spawnSync('curl', ['--version']).status === 0;
/** Runs a command line with sh, bounded in time. */
const sh = (line: string, extra: Record<string, string>) =>
  promisify(execFile)('sh', ['-c', line], { env: cleanEnv(extra), encoding: 'utf8', timeout: 10_000 });

describe('1. every --dry-run curl line runs as printed', () => {
  it.runIf(hasCurl)('a bracket tags filter: curl sends exactly the request backupctl would', async () => {
    const dry = await cli(['snapshots', 'list', '--tags', 'daily', '--without-tags', 'weekly', '--page-size', '20', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(sent()).toHaveLength(0);
    // The line as printed, run by a shell, with the token from the environment as it says.
    // Asynchronously: the emulator answering it runs in this process.
    const { stdout: out } = await sh(`${dry.stdout.trim()} --silent --show-error --fail`, { BACKUPCTL_TOKEN: emu.token });
    expect(JSON.parse(out)).toHaveProperty('data');
    const got = apiRequests(emu);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ method: 'GET', path: '/v1/snapshots', query: { 'tags[daily]': '1', 'tags[weekly]': '0', page_size: '20' } });
    expect(got[0]!.headers.authorization).toBe(`Bearer ${emu.token}`);
  });

  it.runIf(hasCurl)('without a base URL the line reads it from $BACKUPCTL_BASE_URL and still runs', async () => {
    const dry = await runCli(['jobs', 'backup', 'list', JOB, '--tags', 'manual', '--dry-run'], { env: { BACKUPCTL_CONFIG_DIR: session.cfg.dir } });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('$BACKUPCTL_BASE_URL');
    await sh(`${dry.stdout.trim()} --silent --show-error --output /dev/null`, { BACKUPCTL_TOKEN: emu.token, BACKUPCTL_BASE_URL: emu.url });
    const got = apiRequests(emu);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ method: 'GET', path: `/v1/jobs/${JOB}/backups`, query: { 'tags[manual]': '1' } });
  });

  it('the exact bytes: --globoff only where curl would glob', async () => {
    const tags = await cli(['snapshots', 'list', '--tags', 'daily', '--dry-run']);
    expect(tags.stdout).toBe(
      `curl -X GET '${emu.url}/v1/snapshots?tags[daily]=1' \\\n  --globoff \\\n  -H "Authorization: Bearer $BACKUPCTL_TOKEN" \\\n  -H 'Accept: application/json'\n`,
    );
    const plain = await cli(['snapshots', 'list', '--dry-run']);
    expect(plain.stdout).not.toContain('--globoff');
  });
});

describe('2. impossible dates exit 2 naming the flag', () => {
  it.each([
    ['--started-since', '2026-02-30'],
    ['--started-since', '2026-04-31'],
    ['--completed-since', '2026-04-31T10:00:00Z'],
    ['--started-since', '2027-02-29'],
    ['--started-since', '2026-13-01'],
    ['--started-since', '2026-01-01T24:30:00Z'],
    ['--started-since', '2026-01-01T10:61:00Z'],
  ])('%s %s', async (flag, value) => {
    const stderr = await refused(['jobs', 'backup', 'list', JOB, flag, value], flag, value);
    expect(stderr.split('\n')[0]).toMatch(/^error: /);
  });

  it('29 February of a leap year and a zone offset are real dates, sent as UTC', async () => {
    const r = await cli(['jobs', 'backup', 'list', JOB, '--started-since', '2028-02-29T01:30:00+02:00', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('started_since=2028-02-28T23:30:00.000Z');
  });
});

describe('3. cron expressions and time zones are checked before sending', () => {
  const create = ['jobs', 'create', '--name', 'n', '--recipe-id', '1', '--server', '1', '--storage', '1'];
  it.each([['99 2 * * *'], ['0 24 * * *'], ['0 2 * * 8'], ['0 0 31 2 *'], ['0 2 * *']])('jobs create --cron %j', async (cron) => {
    await refused([...create, '--cron', cron], '--cron', cron);
  });
  it('jobs create --timezone Mars/X', async () => {
    await refused([...create, '--cron', '0 2 * * *', '--timezone', 'Mars/X'], '--timezone', 'Mars/X');
  });
  it('jobs schedule update, droplets and volumes check theirs too', async () => {
    await refused(['jobs', 'schedule', 'update', JOB, '31', '--cron', '61 * * * *'], '--cron');
    await refused(['jobs', 'schedule', 'update', JOB, '31', '--timezone', 'Europe/Atlantis'], '--timezone', 'Europe/Atlantis');
    await refused(['droplets', 'update', '301234567', '--timezone', 'Mars/X'], '--timezone');
    await refused(['volumes', 'update', JOB, '--timezone', 'Mars/X'], '--timezone');
  });
  it('a good expression and zone are sent as given', async () => {
    const r = await cli([...create, '--cron', '30 2 * * 1-5', '--timezone', 'Asia/Tokyo', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"cron":"30 2 * * 1-5","timezone":"Asia/Tokyo"');
  });
});

describe('5. --poll-interval below 1s is refused', () => {
  it.each([['0s'], ['0'], ['500ms']])('--poll-interval %s', async (v) => {
    await refused(['jobs', 'backup', 'start', JOB, '--wait', '--poll-interval', v], '--poll-interval', '1s');
  });
});

describe('9. contradictory flags exit 2 naming both', () => {
  it('--tags daily --without-tags daily', async () => {
    await refused(['snapshots', 'list', '--tags', 'daily', '--without-tags', 'daily'], '--tags', '--without-tags', 'daily');
    await refused(['jobs', 'backup', 'list', JOB, '--tags', 'daily,weekly', '--without-tags', 'weekly', '--dry-run'], '--tags', '--without-tags');
  });
  it('--secondary-region ams3 --no-secondary-region, in either order', async () => {
    await refused(['droplets', 'update', '301234567', '--secondary-region', 'ams3', '--no-secondary-region'], '--secondary-region', '--no-secondary-region');
    await refused(['droplets', 'update', '301234567', '--no-secondary-region', '--secondary-region', 'ams3'], '--secondary-region', '--no-secondary-region');
  });
  it('--secret S --secret-file f, with --dry-run too', async () => {
    const f = file('secret.txt', 'from-file\n');
    const base = ['storage', 'add', '--name', 'x', '--provider', 'cloud_a', '--region', 'eu', '--bucket', 'b', '--key', 'K'];
    await refused([...base, '--secret', 'S', '--secret-file', f], '--secret', '--secret-file');
    const stderr = await refused([...base, '--secret', 'S', '--secret-file', f, '--dry-run'], '--secret', '--secret-file');
    expect(stderr).not.toContain('from-file');
  });
  it('a single-valued flag given twice with different values', async () => {
    await refused(['storage', 'list', '--provider', 'cloud_a', '--provider', 'cloud_b'], '--provider');
    await refused(['jobs', 'list', '--page', '1', '--page', '2'], '--page');
    await refused(['--profile', 'a', '--profile', 'b', 'jobs', 'list'], '--profile');
    await refused(['jobs', 'list', '-o', 'json', '--output', 'tsv'], '--output');
  });
  it('the same value twice, and repeatable flags, are fine', async () => {
    const r = await cli(['storage', 'list', '--provider', 'cloud_a', '--provider', 'cloud_a', '-q']);
    expect(r.code).toBe(0);
    expect(sent()[0]).toMatchObject({ query: { provider: 'cloud_a' } });
    const both = await cli(['status', '--job', 'shop mysql', '--job', 'events mongodb', '-q']);
    expect(both.stderr).not.toContain('twice');
  });
});

describe('10. wait options without --wait', () => {
  it.each([
    [['--wait-timeout', '1h'], '--wait-timeout'],
    [['--poll-interval', '10s'], '--poll-interval'],
    [['--strict'], '--strict'],
  ])('%j needs --wait', async (flags, name) => {
    const stderr = await refused(['jobs', 'backup', 'start', JOB, ...flags], name, 'needs --wait');
    expect(stderr.split('\n')[0]).toMatch(/^error: /);
  });
  it('with --wait they are taken; the defaults need nothing', async () => {
    const id = await firstJobId();
    const r = await cli(['jobs', 'backup', 'start', id, '--wait', '--wait-timeout', '30s', '--poll-interval', '1s', '-q']);
    expect(r.stderr).not.toContain('needs --wait');
    expect([0, 8]).toContain(r.code);
    const plain = await cli(['jobs', 'backup', 'start', id, '-q']);
    expect(plain.code).toBe(0);
  });
});

describe('4. flags beside --file override only their own fields of its schedule', () => {
  const fileSchedule = { order: 1, cron: '0 2 * * *', timezone: 'Europe/Paris', run_offset: 2, retention_daily: 7, retention_weekly: 4 };
  const job = (schedules: unknown[]) =>
    file('job.json', JSON.stringify({ name: 'from-file', recipe_id: 1, compute: { type: 'server', server_id: 1 }, storage: [{ storage_id: 1, priority: 1 }], schedules }));

  it('--cron changes the cron alone: time zone, run_offset and retention stay', async () => {
    const r = await cli(['jobs', 'create', '--file', job([fileSchedule]), '--cron', '0 5 * * *', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const post = sent().find((q) => q.method === 'POST');
    expect((post!.body as { schedules: unknown[] }).schedules).toEqual([{ ...fileSchedule, cron: '0 5 * * *' }]);
  });

  it('--timezone and --retention-daily alone override theirs', async () => {
    const r = await cli(['jobs', 'create', '--file', job([fileSchedule]), '--timezone', 'Asia/Tokyo', '--retention-daily', '14', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(/--data '(.*)'/.exec(r.stdout)![1]!) as { schedules: unknown[] };
    expect(body.schedules).toEqual([{ ...fileSchedule, timezone: 'Asia/Tokyo', retention_daily: 14 }]);
  });

  it('a file with two schedules: a schedule flag cannot say which, exit 2', async () => {
    await refused(['jobs', 'create', '--file', job([fileSchedule, { ...fileSchedule, order: 2 }]), '--cron', '0 5 * * *'], '--cron', '--file');
  });
});

describe('6. status --check -q prints only the ids that fail the check', () => {
  it('the ids of the jobs past their max age, and nothing else', async () => {
    const doc = JSON.parse((await cli(['status', '--json'])).stdout) as { jobs: Array<{ id: string; within_max_age: boolean }> };
    const failing = doc.jobs.filter((j) => !j.within_max_age).map((j) => j.id);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThan(doc.jobs.length);
    const r = await cli(['status', '--check', '-q']);
    expect(r.code).toBe(9);
    expect(r.stdout).toBe(failing.map((id) => `${id}\n`).join(''));
    // Without --check, -q still lists every job.
    const all = await cli(['status', '-q']);
    expect(all.stdout.trim().split('\n').sort()).toEqual(doc.jobs.map((j) => j.id).sort());
  });
});

describe('7. servers code -q prints the code line', () => {
  it('so that `backupctl -q servers code --key 1 | sh` runs it', async () => {
    const plain = await cli(['servers', 'code', '--key', '1']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/\S/);
    for (const args of [['-q', 'servers', 'code', '--key', '1'], ['servers', 'code', '--key', '1', '-q'], ['servers', 'code', '--key', '1', '-o', 'tsv']]) {
      const q = await cli(args);
      expect(q.code).toBe(0);
      // The service makes a new install token per answer: the same line, one line.
      expect(q.stdout.replace(/token=\w+/, 'token=T')).toBe(plain.stdout.replace(/token=\w+/, 'token=T'));
      expect(q.stdout).toMatch(/^[^\n]+\n$/);
    }
  });
});

describe('8. --fail-if-empty names the resource listed', () => {
  it.each([
    [['jobs', 'backup', 'list', '@job'], 'no backups matched'],
    [['droplets', 'snapshot', 'list', '301234567'], 'no snapshots matched'],
    [['volumes', 'snapshot', 'list', '@volume'], 'no snapshots matched'],
    [['jobs', 'list', '--modified-since', '2099-01-01'], 'no jobs matched'],
    [['ssh-keys', 'list', '--modified-since', '2099-01-01'], 'no SSH keys matched'],
  ])('%j', async (args, message) => {
    const volumes = (await (await apiFetch(emu, '/v1/cloud_i/volumes?page_size=100')).json()) as { data: Array<{ id: string }> };
    const job = await firstJobId();
    const filled = args.map((a) => (a === '@job' ? job : a === '@volume' ? String(volumes.data[0]!.id) : a));
    const filters = filled[0] === 'jobs' && filled[1] === 'list' || filled[0] === 'ssh-keys' ? [] : ['--started-since', '2099-01-01'];
    const r = await cli([...filled, ...filters, '--fail-if-empty']);
    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toBe(`error: ${message}\n`);
  });
});

describe('11. config unset, and config get prints the raw value', () => {
  const conf = (args: string[]) => runCli(['--config-dir', session.cfg.dir, ...args], { env: { BACKUPCTL_CONFIG_DIR: undefined } });
  it('config unset output goes back to the default; get prints the value without quotes', async () => {
    expect((await conf(['config', 'set', 'output', 'json'])).code).toBe(0);
    const got = await conf(['config', 'get', 'output']);
    expect(got.code).toBe(0);
    expect(got.stdout).toBe('json\n');
    const url = await conf(['config', 'set', 'base_url', 'https://api.example.com']);
    expect(url.code).toBe(0);
    expect((await conf(['config', 'get', 'base_url'])).stdout).toBe('https://api.example.com\n');
    // --json asks for JSON: the value as a JSON string.
    expect((await conf(['config', 'get', 'base_url', '--json'])).stdout).toBe('"https://api.example.com"\n');

    const unset = await conf(['config', 'unset', 'output']);
    expect(unset.code, unset.stderr).toBe(0);
    expect((await conf(['config', 'get', 'output'])).stdout).toBe('');
    expect(JSON.parse((await conf(['config', 'list', '--json'])).stdout)).toMatchObject({ output: null, base_url: 'https://api.example.com' });
    // Unsetting what is not set is not an error.
    expect((await conf(['config', 'unset', 'output'])).code).toBe(0);
  });
  it('config unset of an unknown key or the token exits 2', async () => {
    const bad = await conf(['config', 'unset', 'colour']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('base_url');
    const token = await conf(['config', 'unset', 'token']);
    expect(token.code).toBe(2);
    expect(token.stderr).toContain('auth logout');
  });
  it('config set output "" points at config unset', async () => {
    const r = await conf(['config', 'set', 'output', '']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('config unset');
    const auto = await conf(['config', 'set', 'output', 'auto']);
    expect(auto.code).toBe(2);
    expect(auto.stderr).toContain('backupctl config unset output');
  });
});

describe('12. storage add input the client can check is refused before sending', () => {
  const add = ['storage', 'add', '--name', 's', '--bucket', 'b'];
  it('--endpoint notaurl', async () => {
    await refused([...add, '--provider', 'custom', '--endpoint', 'notaurl', '--key', 'K', '--secret', 'S'], '--endpoint', 'notaurl');
  });
  it('cloud_a without --key and --secret', async () => {
    await refused([...add, '--provider', 'cloud_a', '--region', 'eu'], '--key', 'cloud_a');
    await refused([...add, '--provider', 'cloud_a', '--region', 'eu', '--key', 'K'], '--secret', 'cloud_a');
    // --secret-file stands for --secret.
    const f = file('s.txt', 'S\n');
    const r = await cli([...add, '--provider', 'cloud_a', '--region', 'eu', '--key', 'K', '--secret-file', f, '-q']);
    expect(r.code, r.stderr).toBe(0);
  });
  it('cloud_m with --key or --secret', async () => {
    await refused([...add, '--provider', 'cloud_m', '--region', 'eu', '--key', 'K'], '--key', 'cloud_m');
    await refused([...add, '--provider', 'cloud_m', '--region', 'eu', '--secret', 'S'], '--secret', 'cloud_m');
    const r = await cli([...add, '--provider', 'cloud_m', '--region', 'eu', '-q']);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('16. accounts add -o table shows the provider', () => {
  it('the answer to a creation has no provider: the table shows the one sent; --json stays the answer', async () => {
    const r = await cli(['accounts', 'add', '--name', 'p16', '--provider', 'cloud_e', '--key', 'K-1', '--zone', 'europe-west4-a', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Provider:?\s+cloud_e/);
    const j = await cli(['accounts', 'add', '--name', 'p16j', '--provider', 'cloud_e', '--key', 'K-1', '--zone', 'europe-west4-a', '--json']);
    const post = sent().filter((q) => q.method === 'POST').pop()!;
    expect(post.path).toBe('/v1/snapshots/accounts');
    expect(JSON.parse(j.stdout)).not.toHaveProperty('provider');
  });
});

describe('14. one unit system for sizes: binary multiples labelled KiB, MiB, GiB, by one formatter', () => {
  it('storage list: estimated_size is read as bytes and shown readable in the table (issue 42.13, which replaced issue 30 §7); tsv keeps the number', async () => {
    const r = await cli(['storage', 'list', '-o', 'table', '--columns', 'id,estimated_size']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[1]).toMatch(/^1 +31\.5 GiB$/);
    expect(r.stdout).not.toMatch(/\d (KB|MB|GB|TB)\b/);
    const tsv = await cli(['storage', 'list', '-o', 'tsv', '--columns', 'id,estimated_size']);
    expect(tsv.stdout.split('\n')[0]).toBe('1\t33787215872');
  });

  it("the service's size texts are shown in the same units: 390 bytes is 390 B, 204 KB is 204 KiB", async () => {
    const job = await firstJobId();
    const backups = (await (await apiFetch(emu, `/v1/jobs/${job}/backups?page_size=15`)).json()) as { data: Array<{ id: string }> };
    const id = backups.data[0]!.id;
    const record = (await (await apiFetch(emu, `/v1/backups/${id}`)).json()) as { data: { files: Array<{ name: string; size: string }> } };
    const r = await cli(['backups', 'get', id, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    for (const f of record.data.files) {
      // What the service states ('390 bytes', '272.25 KB', 1024-based), in the CLI's units and
      // precision: the same amount, one decimal below 100 and none above.
      const [amount, unit] = f.size.split(' ');
      const row = new RegExp(`^${f.name.replace(/\./g, '\\.')} +(\\d+(?:\\.\\d)?) (\\S+)$`, 'm').exec(r.stdout);
      expect(row, f.name).not.toBeNull();
      expect(row![2]).toBe(unit === 'bytes' ? 'B' : unit!.replace('B', 'iB'));
      expect(Math.abs(Number(row![1]) - Number(amount))).toBeLessThanOrEqual((Number(amount) < 100 ? 0.05 : 0.5) + 1e-9);
    }
    expect(r.stdout).not.toMatch(/\d (bytes|KB|MB|GB)\b/);
    // Snapshots: '6.13 GB' from the service is 6.1 GiB here.
    const snaps = await cli(['snapshots', 'list', '-o', 'table', '--columns', 'id,size']);
    expect(snaps.stdout).not.toMatch(/\d (bytes|KB|MB|GB)\b/);
    expect(snaps.stdout).toMatch(/^\d+ +[\d.]+ GiB$/m);
  });
});

describe('14. the table and the progress bar show the same size for the same file', () => {
  let big: Emulator;
  let out: string;
  // Not a round number: the service states it as '290611 bytes'.
  const BYTES = 290_611;
  beforeAll(async () => {
    big = await startTestEmulator({ seed: 'empty', bigFile: BYTES });
    out = mkdtempSync(path.join(tmpdir(), 'backupctl-units-'));
  });
  afterAll(async () => {
    await big.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('284 KiB in the backup table, in the bar and in the list of files written', async () => {
    const bigEnv = { BACKUPCTL_BASE_URL: big.url, BACKUPCTL_TOKEN: big.token, BACKUPCTL_CONFIG_DIR: session.cfg.dir };
    const jobs = JSON.parse((await runCli(['jobs', 'list', '--json'], { env: bigEnv })).stdout) as Array<{ id: string }>;
    const backup = JSON.parse((await runCli(['jobs', 'backup', 'latest', jobs[0]!.id, '--json'], { env: bigEnv })).stdout) as { id: string };
    const table = await runCli(['backups', 'get', backup.id, '-o', 'table'], { env: bigEnv });
    expect(table.stdout).toMatch(/^big-file-\S+\.tar\.gz +284 KiB$/m);
    const r = await inPty(['jobs', 'backup', 'download', jobs[0]!.id, backup.id, '--dir', out, '-o', 'table'], { ...bigEnv, TERM: 'xterm-256color' }, { timeoutMs: 30_000 });
    expect(r.code, r.output).toBe(0);
    const bars = r.output.split(/[\r\n]+/).map((l) => l.replace(/\u001b\[K/g, '')).filter((l) => l.startsWith('['));
    expect(bars.at(-1)).toMatch(/^\[#{30}\] 100%  1\/1 files  284 KiB  [\d.]+ (B|KiB|MiB|GiB)\/s$/);
    expect(screenLines(r.output).some((l) => /^big-file-\S+ +284 KiB +\//.test(l)), r.output).toBe(true);
  }, 60_000);
});

describe('17. tsv carries raw values, like JSON, flattened', () => {
  type Retention = Partial<Record<'hourly' | 'daily' | 'weekly' | 'monthly', number>>;
  const retention = (r: Retention) => [r.hourly ?? '', r.daily ?? '', r.weekly ?? '', r.monthly ?? ''];
  const json = async <T>(args: string[]) => JSON.parse((await cli([...args, '--json'])).stdout) as T;

  it('droplets list: the frequency in hours, the retention as four counts (hourly, daily, weekly, monthly)', async () => {
    type Droplet = { id: number; name: string; host: string; status: string; frequency: number; retention: Retention; timezone: string; size: string; location: string; estimated_cost?: string; created_at: string };
    const all = await json<Droplet[]>(['droplets', 'list']);
    const tsv = await cli(['droplets', 'list', '-o', 'tsv']);
    expect(tsv.code).toBe(0);
    expect(tsv.stdout).toBe(
      all.map((d) => [d.id, d.name, d.host, d.status, d.frequency, ...retention(d.retention), d.timezone, d.size, d.location, d.estimated_cost ?? '', d.created_at].join('\t') + '\n').join(''),
    );
    expect(tsv.stdout).not.toMatch(/every \d+h|\bd\d+ w\d+/);
    // The table keeps its display text.
    const table = await cli(['droplets', 'list', '-o', 'table']);
    expect(table.stdout).toMatch(/ every 24h +d7 w4 m3 /);
  });

  it('volumes list: the same', async () => {
    type Volume = { id: string; name: string; status: string; frequency: number; retention: Retention; timezone: string; size: string; location: string; estimated_cost?: string; created_at: string };
    const all = await json<Volume[]>(['volumes', 'list']);
    const tsv = await cli(['volumes', 'list', '-o', 'tsv']);
    expect(tsv.stdout).toBe(
      all.map((v) => [v.id, v.name, v.status, v.frequency, ...retention(v.retention), v.timezone, v.size, v.location, v.estimated_cost ?? '', v.created_at].join('\t') + '\n').join(''),
    );
  });

  it('snapshots list: the provider as the service names it (cloud_e, not Cloud E), the resource as type and id', async () => {
    type Snap = { id: number; name: string; provider: { name: string }; status: string; size: string; tags: Record<string, number>; started_at: string; completed_at: string | null; credentials: { name: string }; resource: { type: string; id: number } };
    const all = await json<Snap[]>(['snapshots', 'list']);
    const tsv = await cli(['snapshots', 'list', '-o', 'tsv']);
    const names = (t: Record<string, number>) => Object.keys(t).filter((k) => t[k]).join(',');
    expect(tsv.stdout).toBe(
      all.map((s) => [s.id, s.name, s.provider.name, s.status, s.size, names(s.tags), s.started_at, s.completed_at ?? '', s.credentials.name, s.resource.type, s.resource.id].join('\t') + '\n').join(''),
    );
    expect(tsv.stdout).not.toMatch(/Cloud [A-Z]/);
    const table = await cli(['snapshots', 'list', '-o', 'table']);
    expect(table.stdout).toMatch(/ Cloud E /);
  });

  it('accounts and resources list: the provider as the service names it', async () => {
    const accounts = await json<Array<{ id: number; provider: { name: string } }>>(['accounts', 'list']);
    const a = await cli(['accounts', 'list', '-o', 'tsv', '--columns', 'id,provider']);
    expect(a.stdout).toBe(accounts.map((x) => `${x.id}\t${x.provider.name}\n`).join(''));
    const resources = await json<Array<{ id: number; provider: { name: string } }>>(['resources', 'list']);
    const r = await cli(['resources', 'list', '-o', 'tsv', '--columns', 'id,provider']);
    expect(r.stdout).toBe(resources.map((x) => `${x.id}\t${x.provider.name}\n`).join(''));
  });
});

describe('21. the README and docs/ tell what the CLI does', () => {
  // The README links a page per topic (issue 25 §13): the exit codes and the emulator have their own.
  const doc = (file: string) => readFileSync(path.join(ROOT, 'docs', file), 'utf8');
  const section = (title: string) => doc({ 'Exit codes': 'exit-codes.md', 'The emulator': 'emulator.md' }[title]!);

  it('the exit-code table has every code, and each row names the flags and commands `help exit-codes` names for it', async () => {
    const rows = new Map([...section('Exit codes').matchAll(/^\| (\d+) \| (.*) \|$/gm)].map((m) => [Number(m[1]), m[2]!]));
    for (const [code, meaning] of EXIT_CODES) {
      expect(rows.has(code), `exit ${code}`).toBe(true);
      for (const flag of meaning.match(/--[a-z-]+/g) ?? []) expect(rows.get(code), `exit ${code}: ${flag}`).toContain(flag);
    }
    expect(rows.get(9)).toContain('`status --check`');
    expect(rows.get(6)).toContain('`--wait-timeout`');
  });

  it('the emulator section names every flag `backupctl emulator --help` lists', async () => {
    const help = await runCli(['emulator', '--help']);
    // The emulator's own options: the block under "Options:", not the global ones after it.
    const own = help.stdout.slice(help.stdout.indexOf('\nOptions:\n')).split(/\n\n/)[0]!;
    const flags = [...new Set(own.match(/^ {2}(--[a-z-]+)/gm)!.map((f) => f.trim()))].filter((f) => f !== '--help');
    expect(flags).toEqual(expect.arrayContaining(['--outcome', '--big-job', '--tick']));
    const text = section('The emulator');
    for (const flag of flags) expect(text, flag).toMatch(new RegExp(`\`[^\`]*${flag}\\b`));
  });

  it('usage errors are documented as they are printed: the error, then an indented hint; the example runs as shown', async () => {
    const text = section('Exit codes');
    const block = /```console\n\$ (backupctl [^\n#]+?)\s*(?:#[^\n]*)?\n(error: [^\n]+\n {2}[^\n]+\n)```/.exec(text);
    expect(block, 'a usage error example: the command line, then its stderr').not.toBeNull();
    const args = block![1]!.split(' ').slice(1);
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(sent()).toHaveLength(0);
    expect(r.stderr).toBe(block![2]);
    // help exit-codes says so too.
    const help = await runCli(['help', 'exit-codes']);
    expect(help.stdout).toMatch(/hint/);
  });
});
