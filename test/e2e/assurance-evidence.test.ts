// report --assurance (issue 44): the restore testing evidence an auditor takes, in --json, -o md and
// -o html. After a real `assure run` on the bad-night demo (crm postgres lost 90% of its orders on the
// newest night): per job the plan, the latest test with its backup (id, created_at), engine, RTO
// measured against the budget, each validation held or failed, and coverage, where a failure, a
// missing or stale proof and an unchecked result are never covered.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { backupsOf, jobIdOf, withEmulator } from '../helpers/emulator.js';
import { MarksStore, serviceKey } from '../../src/state/marks.js';
import { reportDocumentSchema } from '../../src/report/document.js';

const work = mkdtempSync(path.join(tmpdir(), 'backupctl-evidence-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = path.join(work, name);
  writeFileSync(p, text);
  return p;
};

const RUN_PLAN = [
  'version: 1',
  'assurance:',
  '  "crm postgres":',
  '    restore_test_every: 7d',
  '    rto: 15m',
  '    validations:',
  '      - sql: "SELECT count(*) FROM public.customers"',
  '        expect: "> 0"',
  '      - sql: "SELECT count(*) FROM public.orders"',
  '        expect: ">= 500"',
  '  "api postgres":',
  '    verify_every: 1d',
  '  "shop mysql":',
  '    verify_every: 1d',
  '',
].join('\n');

// The report's plans: those run, one never tested (web-01 files) and one proven too long ago (marketing site).
const REPORT_PLAN = `${RUN_PLAN}  "web-01 files":\n    restore_test_every: 7d\n  "marketing site":\n    verify_every: 1d\n`;

describe('report --assurance: restore testing evidence', () => {
  const emu = withEmulator({ badNight: true });
  const home = path.join(work, 'home');
  const env = () => {
    mkdirSync(path.join(home, 'cfg'), { recursive: true });
    mkdirSync(path.join(home, 'state'), { recursive: true });
    return { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: path.join(home, 'cfg'), XDG_STATE_HOME: path.join(home, 'state') };
  };

  it('says per job what the plan asks, which backup was tested when, the RTO and each assertion, and what is covered', async () => {
    const runPlan = file('run.yaml', RUN_PLAN);
    const reportPlan = file('report.yaml', REPORT_PLAN);
    // marketing site: a verify that passed three days ago, stale against its plan of 1d.
    const marketing = await jobIdOf(emu, 'marketing site');
    const [newestMarketing] = await backupsOf(emu, 'marketing site', 'sort=-created_at');
    const stale = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const store = await MarksStore.open(path.join(home, 'state', 'backupctl'), serviceKey(emu.url, emu.token));
    await store.record('verify', [{ backupId: newestMarketing!.id, jobId: marketing, createdAt: newestMarketing!.created_at, mark: { at: stale, state: 'passed', reason: null, exit_code: 0 } }]);

    const run = await runCli(['assure', 'run', '-f', runPlan, '--json'], { env: env() });
    // The failed assertion fails the restore test: exit 9.
    expect(run.code, run.stderr).toBe(9);

    const r = await runCli(['report', '--since', '7d', '--assurance', reportPlan, '--json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const doc = reportDocumentSchema.parse(JSON.parse(r.stdout));
    const ev = doc.assurance!;
    expect(ev.plan_file).toBe(reportPlan);
    expect(ev.jobs.map((j) => j.job)).toEqual(['api postgres', 'crm postgres', 'marketing site', 'shop mysql', 'web-01 files']);
    const job = (name: string) => ev.jobs.find((j) => j.job === name)!;

    // crm postgres: its newest backup (the bad night) restored; customers held, orders failed: not covered.
    const [newestCrm] = await backupsOf(emu, 'crm postgres', 'sort=-created_at');
    const crm = job('crm postgres');
    expect(crm).toMatchObject({ restore_test_every: '7d', rto: '15m', covered: false, validations: ['SELECT count(*) FROM public.customers > 0', 'SELECT count(*) FROM public.orders >= 500'] });
    expect(crm.tests).toHaveLength(1);
    const rt = crm.tests[0]!;
    expect(rt).toMatchObject({
      kind: 'restore_test',
      every: '7d',
      covered: false,
      state: 'failing',
      backup_id: newestCrm!.id,
      backup_created_at: newestCrm!.created_at,
      result: 'failed',
      rto_seconds: 900,
      assertions: [
        { validation: 'SELECT count(*) FROM public.customers > 0', held: true },
        { validation: 'SELECT count(*) FROM public.orders >= 500', held: false },
      ],
    });
    expect(rt.engine).toMatch(/PostgreSQL/);
    expect(Date.parse(rt.tested_at!)).toBeGreaterThan(Date.now() - 600_000);
    expect(crm.backups.map((b) => b.backup_id)).toEqual([newestCrm!.id]);

    // api postgres: verified now, within 1d: covered.
    const [newestApi] = await backupsOf(emu, 'api postgres', 'sort=-created_at');
    expect(job('api postgres')).toMatchObject({ covered: true, tests: [{ kind: 'verify', state: 'covered', covered: true, result: 'passed', backup_id: newestApi!.id, assertions: [] }] });
    // shop mysql: encrypted, no key: unchecked, never passing.
    expect(job('shop mysql').tests[0]).toMatchObject({ state: 'unchecked', covered: false, result: 'unchecked' });
    // marketing site: proven three days ago against 1d: stale, not covered.
    expect(job('marketing site').tests[0]).toMatchObject({ state: 'due', covered: false, tested_at: stale, backup_id: newestMarketing!.id });
    // web-01 files: never tested.
    expect(job('web-01 files').tests[0]).toMatchObject({ state: 'due', covered: false, tested_at: null, backup_id: null, why: 'never tested: no restore test has looked at a backup' });
    expect(ev.summary).toEqual({ jobs: 5, covered: 1, tests: 5, tests_covered: 1 });

    // Markdown: the section, one row per test, each assertion held or FAILED.
    const md = await runCli(['report', '--since', '7d', '--assurance', reportPlan, '-o', 'md'], { env: env() });
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain('## Restore testing evidence\n\n1 of 5 jobs covered (1 of 5 tests)');
    const row = md.stdout.split('\n').find((l) => l.startsWith('| crm postgres | restore test |'))!;
    expect(row).toContain(`| ${newestCrm!.id} | ${newestCrm!.created_at.slice(0, 16).replace('T', ' ')} UTC |`);
    expect(row).toMatch(/\| failed \| PostgreSQL [^|]+ \| not measured of 900 s \| 1 held, 1 failed \| no: failing \|$/);
    expect(md.stdout).toContain('  - FAILED: `SELECT count(*) FROM public.orders >= 500`');
    expect(md.stdout).toContain('  - held: `SELECT count(*) FROM public.customers > 0`');
    expect(md.stdout).toMatch(/^\| shop mysql \| verify \| 1d \| .* \| unchecked \| .* \| no: unchecked \|$/m);

    // HTML: the same section, each row saying whether it is covered.
    const html = await runCli(['report', '--since', '7d', '--assurance', reportPlan, '-o', 'html'], { env: env() });
    expect(html.code, html.stderr).toBe(0);
    expect(html.stdout).toContain('<section id="assurance"><h2>Restore testing evidence</h2>');
    expect(html.stdout).toContain('<tr data-job="api postgres" data-test="verify" data-covered="true">');
    expect(html.stdout).toContain('<tr data-job="crm postgres" data-test="restore_test" data-covered="false">');
    expect(html.stdout).toContain('FAILED: <code>SELECT count(*) FROM public.orders &#62;= 500</code>');

    // Without --assurance the report has no such section.
    const plain = await runCli(['report', '--since', '7d', '--json'], { env: env() });
    expect(JSON.parse(plain.stdout).assurance ?? null).toBeNull();
  }, 120_000);

  it('assure status judges as the report does: a restore test that ran no validation of the plan is not-validated, unchecked is unchecked; neither is covered', async () => {
    // After the test above: shop mysql's verify was unchecked. Now a restore test of api postgres that passed
    // without any --assert (run by hand), and a plan that asks for a validation of it.
    const api = await jobIdOf(emu, 'api postgres');
    const [newestApi] = await backupsOf(emu, 'api postgres', 'sort=-created_at');
    const store = await MarksStore.open(path.join(home, 'state', 'backupctl'), serviceKey(emu.url, emu.token));
    const at = new Date(Date.now() - 3_600_000).toISOString();
    await store.record('restore_test', [{ backupId: newestApi!.id, jobId: api, createdAt: newestApi!.created_at, mark: { at, state: 'passed', reason: null, exit_code: 0, total_seconds: 4, rows: 10, tables: 1 } }]);
    const plan = file('validated.yaml', 'version: 1\nassurance:\n  "api postgres":\n    restore_test_every: 7d\n    validations:\n      - table_exists: public.users\n  "shop mysql":\n    verify_every: 1d\n');
    const status = await runCli(['assure', 'status', '-f', plan, '--json'], { env: env() });
    expect(status.code, status.stderr).toBe(0);
    const rows = (JSON.parse(status.stdout) as Array<{ job: string; kind: string; state: string }>).map((r) => [r.job, r.kind, r.state]).sort();
    expect(rows).toEqual([
      ['api postgres', 'restore_test', 'not-validated'],
      ['shop mysql', 'verify', 'unchecked'],
    ]);
    const check = await runCli(['assure', 'status', '-f', plan, '--check'], { env: env() });
    expect(check.code).toBe(9);
    expect(check.stderr).toContain('restore-test "api postgres" not-validated');
    expect(check.stderr).toContain('verify "shop mysql" unchecked');
    const prom = await runCli(['assure', 'status', '-f', plan, '-o', 'prometheus'], { env: env() });
    expect(prom.stdout).toContain('backupctl_assurance_covered{job="api postgres",test="restore_test"} 0');
    const r = await runCli(['report', '--since', '7d', '--assurance', plan, '--json'], { env: env() });
    const ev = reportDocumentSchema.parse(JSON.parse(r.stdout)).assurance!;
    expect(ev.jobs.map((j) => [j.job, j.tests.map((t) => t.state)])).toEqual([
      ['api postgres', ['not-validated']],
      ['shop mysql', ['unchecked']],
    ]);
  }, 60_000);

  it('refuses a bad plan with exit 2 before reading the fleet', async () => {
    const bad = file('bad.yaml', 'version: 1\nassurance:\n  "crm postgre":\n    verify_every: 1d\n');
    emu.clearRequests();
    const r = await runCli(['report', '--assurance', bad, '--json'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('did you mean "crm postgres"');
    expect(emu.requests.filter((q) => q.path.includes('/backups'))).toEqual([]);
  });
});

describe('assure status --all-profiles', () => {
  const agency = withEmulator();
  const client = withEmulator({ badNight: true });
  const cfg = path.join(work, 'profiles-cfg');
  const state = path.join(work, 'profiles-state');
  const env = () => ({ BACKUPCTL_CONFIG_DIR: cfg, XDG_STATE_HOME: state });

  it('the single-profile view with a profile column, each profile judged by its own jobs and marks; --check exits 9 for any', async () => {
    mkdirSync(cfg, { recursive: true, mode: 0o700 });
    mkdirSync(state, { recursive: true });
    for (const [name, emu] of [['agency', agency], ['client', client]] as const) {
      const r = await runCli(['auth', 'login', '--profile', name, '--base-url', emu.url, '--with-token'], { env: env(), input: `${emu.token}\n` });
      expect(r.code, r.stderr).toBe(0);
    }
    const plan = file('profiles.yaml', 'version: 1\nassurance:\n  "* postgres":\n    verify_every: 1d\n');
    // Only the client's jobs are tested: its postgres jobs are covered, the agency's due.
    const run = await runCli(['--profile', 'client', 'assure', 'run', '-f', plan], { env: env() });
    expect(run.code, run.stderr).toBe(0);

    const table = await runCli(['assure', 'status', '-f', plan, '--all-profiles', '-o', 'table'], { env: env() });
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Profile\s+Job\s+Test\s+Every\s+State\s+Last proof/);
    const rows = lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 5));
    expect(rows).toEqual([
      ['agency', 'api postgres', 'verify', '1d', 'due'],
      ['client', 'api postgres', 'verify', '1d', 'covered'],
      ['client', 'crm postgres', 'verify', '1d', 'covered'],
    ]);
    const tsv = await runCli(['assure', 'status', '-f', plan, '--profiles', 'client', '-o', 'tsv'], { env: env() });
    expect(tsv.stdout.split('\n').filter(Boolean).map((l) => l.split('\t').slice(0, 5))).toEqual([
      ['client', 'api postgres', 'verify', '1d', 'covered'],
      ['client', 'crm postgres', 'verify', '1d', 'covered'],
    ]);
    const json = await runCli(['assure', 'status', '-f', plan, '--all-profiles', '--json'], { env: env() });
    const { profiles } = JSON.parse(json.stdout) as { profiles: Array<{ profile: string; result: Array<{ job: string; state: string }> }> };
    expect(profiles.map((p) => [p.profile, p.result.map((r) => r.state)])).toEqual([
      ['agency', ['due']],
      ['client', ['covered', 'covered']],
    ]);
    const check = await runCli(['assure', 'status', '-f', plan, '--all-profiles', '--check', '-q'], { env: env() });
    expect(check.code).toBe(9);
    expect(check.stderr).toContain('[agency] error: 1 test of the plans not covered: verify "api postgres" due');
    expect(check.stderr).toContain('error: 1 of 2 profiles failed: agency (exit 9)');
    // -o prometheus is one exposition per profile: refused with several.
    const prom = await runCli(['assure', 'status', '-f', plan, '--all-profiles', '-o', 'prometheus'], { env: env() });
    expect(prom.code).toBe(2);
  }, 120_000);
});
