// --all-profiles / --profiles a,b (src/cli/profiles.ts): one run per profile,
// each with its own token and base URL, merged into one answer. Two emulators
// stand for two service accounts; each must only ever see its own token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

const NOW = '2026-03-10T12:00:00Z';
let agency: Emulator;
let client: Emulator;
let cfg: ReturnType<typeof tempConfigDir>;
// Quick retries, so the stopped emulator's row comes fast.
const env = () => ({ BACKUPCTL_CONFIG_DIR: cfg.dir, BACKUPCTL_RETRY_BASE: '10ms', BACKUPCTL_RETRY_MAX_WAIT: '20ms' });
const cli = (args: string[], input?: string) => runCli(args, { env: env(), input, timeoutMs: 60_000 });

interface Outcome {
  profile: string;
  base_url: string;
  ok: boolean;
  exit_code: number;
  error: string | null;
  result: { jobs: Array<{ name: string }> } | null;
}

beforeAll(async () => {
  [agency, client] = await Promise.all([startTestEmulator({ now: Date.parse(NOW) }), startTestEmulator({ now: Date.parse(NOW), retentionJobs: true })]);
  cfg = tempConfigDir();
  for (const [name, emu] of [['agency', agency], ['client', client]] as const) {
    const r = await cli(['auth', 'login', '--profile', name, '--base-url', emu.url, '--with-token'], `${emu.token}\n`);
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(async () => {
  await Promise.all([agency.close(), client.close()]);
  cfg.cleanup();
});

const tokensSeen = (emu: Emulator) => new Set(emu.requests.filter((r) => r.server === 'api').map((r) => String(r.headers.authorization)));

describe('status --all-profiles', () => {
  it('--json holds both profiles, each from its own service; each emulator saw only its own token', async () => {
    agency.clearRequests();
    client.clearRequests();
    const r = await cli(['status', '--all-profiles', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { profiles } = JSON.parse(r.stdout) as { profiles: Outcome[] };
    expect(profiles.map((p) => [p.profile, p.base_url, p.ok, p.exit_code])).toEqual([
      ['agency', agency.url, true, 0],
      ['client', client.url, true, 0],
    ]);
    const names = (p: Outcome) => p.result!.jobs.map((j) => j.name);
    expect(names(profiles[0]!)).not.toContain('retention lowered');
    expect(names(profiles[1]!)).toContain('retention lowered');
    expect(tokensSeen(agency)).toEqual(new Set([`Bearer ${agency.token}`]));
    expect(tokensSeen(client)).toEqual(new Set([`Bearer ${client.token}`]));
  });

  it('a table with a PROFILE column; --profiles picks some; unknown profiles and a global token are refused before anything is sent', async () => {
    const table = await cli(['status', '--profiles', 'client', '-o', 'table']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[1]).toMatch(/^Profile\s+Health\s+Name\s/);
    expect(table.stdout).toMatch(/^client\s+\w+\s+retention lowered\s/m);
    expect(table.stdout).not.toMatch(/^agency/m);
    agency.clearRequests();
    const unknown = await cli(['status', '--profiles', 'client,nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('error: --profiles: no profile "nope"');
    const shared = await runCli(['status', '--all-profiles'], { env: { ...env(), BACKUPCTL_TOKEN: agency.token } });
    expect(shared.code).toBe(2);
    expect(shared.stderr).toContain('BACKUPCTL_TOKEN is set: it would apply to every profile');
    expect(agency.requests).toHaveLength(0);
  });

  it('retention --all-profiles runs the forecast per profile too', async () => {
    const r = await cli(['retention', 'retention lowered', '--profiles', 'client', '--now', NOW, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { profiles } = JSON.parse(r.stdout) as { profiles: Array<{ profile: string; result: Array<{ expire: string[] }> }> };
    expect(profiles[0]!.result[0]!.expire).toHaveLength(3);
  });

  it('verify --latest --all-profiles reads each backup from its own service, with its own token, and merges the verdicts', async () => {
    agency.clearRequests();
    client.clearRequests();
    const r = await cli(['verify', 'api postgres', '--latest', '--all-profiles', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { profiles } = JSON.parse(r.stdout) as {
      profiles: Array<{ profile: string; ok: boolean; result: { verdict: string; backups: Array<{ id: string; files: Array<{ name: string }> }> } }>;
    };
    expect(profiles.map((p) => [p.profile, p.ok, p.result.verdict])).toEqual([
      ['agency', true, 'passed'],
      ['client', true, 'passed'],
    ]);
    for (const [p, emu] of [[profiles[0]!, agency], [profiles[1]!, client]] as const) {
      // The files that profile's verdict names were read from that profile's own files server.
      const read = emu.requests.filter((q) => q.server === 'files' && q.method === 'GET').map((q) => decodeURIComponent(q.path.split('/').pop()!));
      expect(read).toEqual(expect.arrayContaining(p.result.backups[0]!.files.map((f) => f.name)));
      expect(tokensSeen(emu)).toEqual(new Set([`Bearer ${emu.token}`]));
    }
    const table = await cli(['verify', 'api postgres', '--latest', '--all-profiles', '-o', 'table']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^PROFILE\s+JOB NAME\s+VERDICT\s/);
    expect(table.stdout).toMatch(/^agency\s+api postgres\s+passed/m);
    expect(table.stdout).toMatch(/^client\s+api postgres\s+passed/m);
  });

  it('report --all-profiles holds the jobs of each profile from its own service', async () => {
    agency.clearRequests();
    client.clearRequests();
    const r = await cli(['report', '--all-profiles', '--json', '--since', '2026-02-08T12:00:00Z', '--until', NOW]);
    expect(r.code, r.stderr).toBe(0);
    const { profiles } = JSON.parse(r.stdout) as { profiles: Array<{ profile: string; ok: boolean; result: { jobs: Array<{ name: string }> } }> };
    expect(profiles.map((p) => [p.profile, p.ok])).toEqual([
      ['agency', true],
      ['client', true],
    ]);
    expect(profiles[0]!.result.jobs.map((j) => j.name)).not.toContain('retention lowered');
    expect(profiles[1]!.result.jobs.map((j) => j.name)).toContain('retention lowered');
    expect(tokensSeen(agency)).toEqual(new Set([`Bearer ${agency.token}`]));
    expect(tokensSeen(client)).toEqual(new Set([`Bearer ${client.token}`]));
  });

  it('a stopped emulator is an error row with its own exit code and hides nothing', async () => {
    await client.close();
    agency.clearRequests();
    const r = await cli(['status', '--all-profiles', '--json']);
    const { profiles } = JSON.parse(r.stdout) as { profiles: Outcome[] };
    const [a, c] = profiles;
    expect(a).toMatchObject({ profile: 'agency', ok: true, exit_code: 0 });
    expect(a!.result!.jobs.length).toBeGreaterThan(0);
    expect(c).toMatchObject({ profile: 'client', ok: false, result: null });
    expect(c!.exit_code).not.toBe(0);
    expect(c!.error).toMatch(/\S/);
    // The command exits with the failing profile's own code, and says which profile failed.
    expect(r.code).toBe(c!.exit_code);
    expect(r.stderr).toContain(`error: 1 of 2 profiles failed: client (exit ${c!.exit_code})`);
    expect(r.stderr).toMatch(/^\[client\] error: /m);
    expect(tokensSeen(agency)).toEqual(new Set([`Bearer ${agency.token}`]));
    const table = await cli(['status', '--all-profiles', '-o', 'table']);
    expect(table.stdout).toMatch(/^agency\s+\S/m);
    expect(table.stdout).toMatch(new RegExp(`^Profile client: not read: .*\\(exit ${c!.exit_code}\\)$`, 'm'));
  });
});

// Issue 42.11: --all-profiles was a reduced view (jobs only, raw ISO times, a header
// "LAST COMPLETED CREATED AT", -q printing the profile name, success as 0.857…).
describe('--all-profiles gives the single-profile view with a profile column', () => {
  let one: Emulator;
  let two: Emulator;
  let cfg2: ReturnType<typeof tempConfigDir>;
  const env2 = () => ({ BACKUPCTL_CONFIG_DIR: cfg2.dir, XDG_STATE_HOME: `${cfg2.dir}/state` });
  const cli2 = (args: string[], input?: string) => runCli(args, { env: env2(), input, timeoutMs: 60_000 });
  beforeAll(async () => {
    [one, two] = await Promise.all([startTestEmulator({ now: Date.parse(NOW) }), startTestEmulator({ now: Date.parse(NOW), retentionJobs: true })]);
    cfg2 = tempConfigDir();
    for (const [name, emu] of [['one', one], ['two', two]] as const) {
      const r = await cli2(['auth', 'login', '--profile', name, '--base-url', emu.url, '--with-token'], `${emu.token}\n`);
      expect(r.code, r.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    await Promise.all([one.close(), two.close()]);
    cfg2.cleanup();
  });

  it('status: jobs, droplets and volumes, relative times and the marks strip, each row with its profile; -q the job ids; tsv a Profile column', async () => {
    const single = await cli2(['status', '--profile', 'two', '-o', 'table', '--json']);
    const doc = JSON.parse(single.stdout) as { jobs: Array<{ id: string; name: string }>; droplets: unknown[]; volumes: unknown[] };
    const r = await cli2(['status', '--all-profiles', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    const sections = r.stdout.split('\n').filter((l) => /^(Jobs|Droplets|Volumes|Snapshot resources)/.test(l));
    expect(sections).toEqual(['Jobs', 'Droplets', 'Volumes', 'Snapshot resources (backups activated)']);
    expect(r.stdout).not.toMatch(/CREATED AT|\d{4}-\d\d-\d\dT\d\d:/);
    expect(r.stdout).toMatch(/^two\s+\w+\s+retention lowered\s.*ago/m);
    expect(r.stdout).toMatch(/^one\s+\w+\s+web-01\s+active/m);
    expect(r.stdout).toMatch(/^two\s+\w+\s+web-01\s+active/m);
    const jobs = (await cli2(['status', '--profile', 'one', '-q'])).stdout.trim().split('\n').length + doc.jobs.length;
    expect(r.stdout).toMatch(new RegExp(`^${jobs} jobs: `, 'm'));
    expect(doc.droplets.length).toBeGreaterThan(0);
    const quiet = await cli2(['status', '--all-profiles', '-q']);
    expect(quiet.code, quiet.stderr).toBe(0);
    const ids = quiet.stdout.trim().split('\n');
    expect(ids).toHaveLength(jobs);
    expect(ids).toEqual(expect.arrayContaining(doc.jobs.map((j) => j.id)));
    expect(quiet.stdout).not.toMatch(/^(one|two)$/m);
    const tsv = await cli2(['status', '--all-profiles', '-o', 'tsv']);
    expect(tsv.stdout).toMatch(/^two\t\w+\tretention lowered\t/m);
  });

  it('report: the report table with a PROFILE column, totals over every profile, success in percent; Markdown names the profile', async () => {
    const r = await cli2(['report', '--all-profiles', '-o', 'table', '--since', '2026-02-08T12:00:00Z', '--until', NOW]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PROFILE\s+NAME\s+SCHEDULE\s+EXPECTED/m);
    expect(r.stdout).toMatch(/^two\s+retention lowered\s+.*\d+(\.\d)?%/m);
    expect(r.stdout).not.toMatch(/0\.\d{6,}/);
    expect(r.stdout).toMatch(/^Droplets: \d+ droplets/m);
    const md = await cli2(['report', '--all-profiles', '-o', 'md', '--since', '2026-02-08T12:00:00Z', '--until', NOW]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^\| two: retention lowered \|/m);
    expect(md.stdout).toMatch(/^\| one: web-01 files \|/m);
  });

  it('-o prometheus with several profiles is refused before anything is sent', async () => {
    one.clearRequests();
    const r = await cli2(['status', '--all-profiles', '-o', 'prometheus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('-o prometheus shows one profile');
    expect(one.requests).toHaveLength(0);
  });
});
