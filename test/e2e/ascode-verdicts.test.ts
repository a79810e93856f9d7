// Issue 23 §3 (findings 8-14) and §6: plan and apply must never mislead.
// The built CLI against the emulator; what was sent is read back from the
// emulator's request log, what the user sees from stdout, stderr and the exit code.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { apiRequests, emulatorEnv, startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

let emu: Emulator;
let dir: string;
let config: { dir: string; cleanup: () => void };
let state: string;

const run = (args: string[], extra: Record<string, string> = {}, input?: string) =>
  runCli(args, { env: { ...emulatorEnv(emu), BACKUPCTL_CONFIG_DIR: config.dir, XDG_STATE_HOME: state, ...extra }, input, timeoutMs: 30_000 });
const changed = () => apiRequests(emu).filter((r) => r.method !== 'GET');
const secretsOf = (text: string) => Object.fromEntries([...text.matchAll(/\$\{env:([A-Z0-9_]+)\}/g)].map((m) => [m[1]!, `value-of-${m[1]}`]));

beforeEach(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(path.join(tmpdir(), 'backupctl-ascode-v-'));
  state = mkdtempSync(path.join(tmpdir(), 'backupctl-ascode-state-'));
  config = tempConfigDir();
});
afterEach(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(state, { recursive: true, force: true });
  config.cleanup();
});

async function exported(only = 'storage,jobs'): Promise<{ file: string; text: string }> {
  const file = path.join(dir, 'backups.yaml');
  const r = await run(['export', '-f', file, '--only', only]);
  expect(r.code).toBe(0);
  return { file, text: readFileSync(file, 'utf8') };
}
function edit(file: string, text: string, change: (doc: ReturnType<typeof parseDocument>) => void): void {
  const doc = parseDocument(text);
  change(doc);
  writeFileSync(file, doc.toString());
}
const newJob = (recipe: string, recipeId: number, extra: Record<string, unknown> = {}) => ({
  recipe,
  recipe_id: recipeId,
  compute: { agent: true },
  storage: [{ storage: 'Managed storage' }],
  schedules: [{ cron: '0 5 * * *' }],
  ...extra,
});

describe('8. secrets are needed only where they are sent', () => {
  it('an unchanged export plans clean with no secret set at all (a CI drift check)', async () => {
    const { file } = await exported('storage,jobs,droplets,volumes,resources');
    emu.clearRequests();
    const r = await run(['plan', '-f', file]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^No changes: the service matches the file\./);
    expect(r.code).toBe(0);
    expect(changed()).toEqual([]);
  });

  it('a drift is exit 12 without the secrets; plan names the secrets apply sends; apply refuses without them and sends nothing', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => doc.setIn(['storage', 'New bucket'], doc.createNode({ provider: 'cloud_a', region: 'eu-west-1', bucket: 'b2', key: '${env:NEW_KEY}', secret: '${file:new-secret.txt}' })));
    const plan = await run(['plan', '-f', file]);
    expect(plan.code).toBe(12);
    expect(plan.stdout).toContain('Secrets apply sends:');
    expect(plan.stdout).toContain('${env:NEW_KEY} for storage "New bucket" key: not set');
    expect(plan.stdout).toContain(`\${file:new-secret.txt} for storage "New bucket" secret: file ${path.join(dir, 'new-secret.txt')} (missing)`);
    expect(plan.stdout).toContain(`Files apply reads: ${path.join(dir, 'new-secret.txt')}`);
    // Only the new storage's secrets: not those of the storage and jobs that exist.
    expect(plan.stdout).not.toContain('BACKUPCTL_STORAGE');
    const json = JSON.parse((await run(['plan', '-f', file, '--json'])).stdout);
    expect(json.secrets).toEqual([
      { reference: '${env:NEW_KEY}', kind: 'storage', name: 'New bucket', field: 'key', available: false, file: null },
      { reference: '${file:new-secret.txt}', kind: 'storage', name: 'New bucket', field: 'secret', available: false, file: path.join(dir, 'new-secret.txt') },
    ]);
    emu.clearRequests();
    const apply = await run(['apply', '-f', file, '--yes']);
    expect(apply.code).toBe(2);
    expect(apply.stderr).toContain('storage."New bucket".key: the environment variable NEW_KEY is not set (apply sends it: storage "New bucket" is created)');
    expect(apply.stderr).toContain('storage."New bucket".secret: the file new-secret.txt does not exist');
    expect(changed()).toEqual([]);
    writeFileSync(path.join(dir, 'new-secret.txt'), 's3cr3t\n');
    const ok = await run(['apply', '-f', file, '--yes'], { NEW_KEY: 'AKIA1' });
    expect(ok.code).toBe(0);
    expect(changed().map((r) => [r.method, r.body])).toEqual([['POST', { name: 'New bucket', provider: 'cloud_a', bucket: 'b2', region: 'eu-west-1', key: 'AKIA1', secret: 's3cr3t' }]]);
  });
});

describe('9. never a job of another recipe', () => {
  it('a create answered with another recipe is deleted again, fails loudly, and the id is known to plan from then on', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => doc.setIn(['jobs', 'new files'], doc.createNode(newJob('files', 3))));
    emu.clearRequests();
    const r = await run(['apply', '-f', file, '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('job "new files": recipe_id 3 made a postgresql job, not files; the job was deleted again');
    expect(changed().map((x) => `${x.method} ${x.path.replace(/[0-9a-f-]{36}/, '<id>')}`)).toEqual(['POST /v1/jobs', 'DELETE /v1/jobs/<id>']);
    const jobs = JSON.parse((await run(['jobs', 'list', '--json'])).stdout) as Array<{ name: string }>;
    expect(jobs.map((j) => j.name)).not.toContain('new files');

    // Now the CLI knows 3 is postgresql: plan refuses the file before anything is sent.
    emu.clearRequests();
    const plan = await run(['plan', '-f', file]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(/jobs\."new files"\.recipe_id: recipe_id 3 is postgresql, not files \(learnt when job "new files" was created\)/);
    expect(changed()).toEqual([]);

    // The right id: created, and from then on export writes the recipe ids it knows.
    edit(file, readFileSync(file, 'utf8'), (doc) => doc.setIn(['jobs', 'new files', 'recipe_id'], 1));
    const ok = await run(['apply', '-f', file, '--yes']);
    expect(ok.code).toBe(0);
    const again = await exported();
    const doc = parseDocument(again.text).toJS();
    expect(doc.jobs['web-01 files'].recipe_id).toBe(1);
    expect(doc.jobs['api postgres'].recipe_id).toBe(3);
    expect(doc.jobs['shop mysql'].recipe_id).toBeUndefined();
    expect(again.text).toContain('\n# Recipe ids known to backupctl (the service lists none): files = 1, postgresql = 3\njobs:\n');
    expect((await run(['plan', '-f', again.file])).code).toBe(0);
    // A slug whose id is known, with another id, is refused too.
    edit(again.file, again.text, (d) => d.setIn(['jobs', 'other files'], d.createNode(newJob('files', 5))));
    const wrong = await run(['plan', '-f', again.file]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('jobs."other files".recipe_id: files is recipe_id 1, not 5 (learnt when job "new files" was created)');
  });

  it('a replace creates first: a new job of another recipe is taken back and the old job stays', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => {
      doc.setIn(['jobs', 'archive files', 'config', 'root_path'], '/srv/archive-2');
      doc.setIn(['jobs', 'archive files', 'recipe_id'], 3);
    });
    const before = JSON.parse((await run(['jobs', 'list', '--json'])).stdout) as Array<{ id: string; name: string }>;
    const old = before.find((j) => j.name === 'archive files')!.id;
    emu.clearRequests();
    const r = await run(['apply', '-f', file, '--yes', '--allow-replace']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('job "archive files": recipe_id 3 made a postgresql job, not files; the job was deleted again');
    const sent = changed();
    expect(sent.map((x) => x.method)).toEqual(['POST', 'DELETE']);
    expect(sent[1]!.path).not.toContain(old);
    const after = JSON.parse((await run(['jobs', 'list', '--json'])).stdout) as Array<{ id: string; name: string }>;
    expect(after.filter((j) => j.name === 'archive files').map((j) => j.id)).toEqual([old]);
  });

  it('an unknown recipe id is said in the plan', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => doc.setIn(['jobs', 'new site'], doc.createNode(newJob('website', 5))));
    const plan = await run(['plan', '-f', file]);
    expect(plan.code).toBe(12);
    expect(plan.stdout).toContain('recipe_id 5 of job "new site" is not yet known to be website');
  });
});

describe('10-12. provider values, references, ${file:}', () => {
  it('10. an unknown provider fails plan with the list storage add checks, before anything is sent', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => doc.setIn(['storage', 'B'], doc.createNode({ provider: 'cloud_zz', region: 'eu', bucket: 'b', key: '${env:K}', secret: '${env:S}' })));
    emu.clearRequests();
    const r = await run(['plan', '-f', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('storage.B.provider: "cloud_zz" is not allowed: one of cloud_i, cloud_a, cloud_j, cloud_k, cloud_l, cloud_f, cloud_m, cloud_g, cloud_c, custom');
    expect(apiRequests(emu)).toEqual([]);
  });

  it('11. a storage named in another case is the same storage: no change', async () => {
    const { file, text } = await exported();
    writeFileSync(file, text.replace('      - storage: Cold archive', '      - storage: cold archive').replace('server: db-01', 'server: DB-01'));
    const r = await run(['plan', '-f', file]);
    expect(r.stdout).toMatch(/^No changes/);
    expect(r.code).toBe(0);
  });

  it('12. ${file:} outside the file\'s folder needs --allow-outside-files, symlinks included; plan names each file apply reads', async () => {
    const { file, text } = await exported();
    const outside = mkdtempSync(path.join(tmpdir(), 'backupctl-outside-'));
    try {
      writeFileSync(path.join(outside, 'pw'), 'outside-secret\n');
      symlinkSync(path.join(outside, 'pw'), path.join(dir, 'link'));
      mkdirSync(path.join(dir, 'sub'));
      writeFileSync(path.join(dir, 'sub', 'pw'), 'inside-secret\n');
      for (const ref of [path.join(outside, 'pw'), '../' + path.basename(outside) + '/pw', 'link']) {
        edit(file, text, (doc) => doc.setIn(['jobs', 'new db'], doc.createNode(newJob('mysql', 2, { config: { mysql_password: `\${file:${ref}}` } }))));
        emu.clearRequests();
        const r = await run(['plan', '-f', file]);
        expect(r.code, ref).toBe(2);
        expect(r.stderr).toContain(`jobs."new db".config.mysql_password: \${file:${ref}} is outside the folder of the backups file (${dir}); give --allow-outside-files to read it`);
        expect(apiRequests(emu)).toEqual([]);
        const a = await run(['apply', '-f', file, '--yes']);
        expect(a.code).toBe(2);
        expect(changed()).toEqual([]);
      }
      const allowed = await run(['plan', '-f', file, '--allow-outside-files']);
      expect(allowed.code).toBe(12);
      expect(allowed.stdout).toContain(`Files apply reads: ${path.join(dir, 'link')}`);
      edit(file, text, (doc) => doc.setIn(['jobs', 'new db'], doc.createNode(newJob('mysql', 2, { config: { mysql_password: '${file:sub/pw}' } }))));
      const inside = await run(['plan', '-f', file]);
      expect(inside.code).toBe(12);
      expect(inside.stdout).toContain(`Files apply reads: ${path.join(dir, 'sub', 'pw')}`);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('13. export keeps secrets out of the file, and the file private', () => {
  it('writes the file at 0600', async () => {
    const { file } = await exported();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('14. smaller points', () => {
  it('@daily and the other macros are accepted, and sent as the 5 fields the service takes', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => {
      doc.setIn(['jobs', 'web-01 files', 'schedules', 0, 'cron'], '@daily');
      doc.setIn(['jobs', 'git server', 'schedules', 0, 'cron'], '@weekly');
    });
    const plan = await run(['plan', '-f', file]);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(12);
    expect(plan.stdout).toContain('schedules[0].cron: "0 2 * * *" -> "@daily" (0 0 * * *)');
    emu.clearRequests();
    expect((await run(['apply', '-f', file, '--yes'])).code).toBe(0);
    expect(changed().map((r) => r.body)).toEqual([{ cron: '0 0 * * 0' }, { cron: '0 0 * * *' }]);
    expect((await run(['plan', '-f', file])).code).toBe(0);
  });

  it('the apply failure hint names the real file', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => doc.setIn(['storage', 'S1'], doc.createNode({ provider: 'cloud_m', region: 'eu', bucket: 's1' })));
    emu.setFaults([{ fault: '500', method: 'POST', path: '/v1/storage', count: 5 }]);
    const r = await run(['apply', '-f', file, '--yes'], { BACKUPCTL_RETRY_BASE: '10ms', BACKUPCTL_RETRY_MAX_WAIT: '20ms' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`Run \`backupctl plan -f ${file}\` to see where the service stands now.`);
  });

  it('plan notes wrap at the terminal width, words whole', async () => {
    const { file, text } = await exported();
    writeFileSync(file, text.replace('cron: 0 2 * * *', 'cron: 0 3 * * *'));
    const r = await run(['plan', '-f', file], { COLUMNS: '50' });
    expect(r.code).toBe(12);
    const lines = r.stdout.split('\n');
    const start = lines.findIndex((l) => l.startsWith('Note: Storage keys'));
    expect(start).toBeGreaterThan(0);
    const note: string[] = [];
    for (let i = start; i < lines.length && lines[i] !== ''; i++) note.push(lines[i]!);
    expect(note.length).toBeGreaterThan(1);
    for (const l of note) expect(l.length).toBeLessThanOrEqual(50);
    expect(note.map((l) => l.trim()).join(' ')).toBe('Note: Storage keys and secrets are sent when a storage is created; the service never shows them, so a plan cannot see them change.');
  });

  it('a replace shows each field before and after, secrets included', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => {
      doc.setIn(['storage', 'Cold archive', 'bucket'], 'acme-archive-2');
      doc.setIn(['jobs', 'archive files', 'config', 'root_path'], '/srv/x');
      doc.setIn(['jobs', 'archive files', 'recipe_id'], 1);
    });
    const r = await run(['plan', '-f', file]);
    expect(r.code).toBe(12);
    const block = (head: RegExp) => {
      const lines = r.stdout.split('\n');
      const i = lines.findIndex((l) => head.test(l));
      expect(i).toBeGreaterThanOrEqual(0);
      const out: string[] = [];
      for (let j = i + 1; j < lines.length && lines[j]!.startsWith('      '); j++) out.push(lines[j]!.trim());
      return out;
    };
    expect(block(/^-\/\+ storage "Cold archive"/)).toEqual([
      'bucket: "acme-archive" -> "acme-archive-2"',
      'key: (not shown) -> (sensitive)',
      'secret: (not shown) -> (sensitive)',
    ]);
    expect(block(/^-\/\+ job "archive files"/)).toEqual(['config.root_path: "/srv/archive" -> "/srv/x"']);
    // A change's own note wraps too, words whole.
    const narrow = await run(['plan', '-f', file], { COLUMNS: '60' });
    for (const l of narrow.stdout.split('\n')) expect(l.length, l).toBeLessThanOrEqual(60);
    expect(narrow.stdout).toMatch(/the service\n\s+cannot change config of a job|the service cannot\n\s+change config|replacing it loses the\n\s+link/);
  });

  it('a tab in the YAML is one problem that says YAML forbids tabs', async () => {
    const { file, text } = await exported();
    writeFileSync(file, text.replace('    provider: cloud_j', '\tprovider: cloud_j'));
    const line = text.split('\n').indexOf('    provider: cloud_j') + 1;
    const r = await run(['plan', '-f', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/backups\.yaml: 1 problem; nothing was changed\n/);
    expect(r.stderr).toContain(`backups.yaml:${line}:1: a tab: YAML forbids tabs for indentation; indent with spaces`);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(2);
  });

  it('an unknown storage name gets "did you mean"', async () => {
    const { file, text } = await exported();
    writeFileSync(file, text.replace('      - storage: Spaces fra1', '      - storage: Spaces fra9'));
    const r = await run(['plan', '-f', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no storage named "Spaces fra9" in the file or the service: did you mean "Spaces fra1"?');
  });
});

describe('--jq on export, plan and apply', () => {
  it('filters their JSON like any other command\'s, and plan still exits 12 on a drift', async () => {
    const { file, text } = await exported();
    expect((await run(['plan', '-f', file, '--jq', '.summary.update'])).stdout).toBe('0\n');
    writeFileSync(file, text.replace('cron: 0 2 * * *', 'cron: 0 3 * * *'));
    const plan = await run(['plan', '-f', file, '--jq', '.summary.update']);
    expect([plan.stdout, plan.code]).toEqual(['1\n', 12]);
    const ex = await run(['export', '--only', 'jobs', '--jq', '.jobs["shop mysql"].recipe']);
    expect([ex.stdout, ex.code]).toEqual(['mysql\n', 0]);
    const apply = await run(['apply', '-f', file, '--yes', '--jq', '.applied[].name']);
    expect([apply.stdout, apply.code]).toEqual(['web-01 files\n', 0]);
  });
});

describe('§6: plan and apply tests that can fail', () => {
  it('apply without --prune sends no DELETE, and its plan lists none', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => {
      doc.deleteIn(['jobs', 'marketing site']);
      doc.deleteIn(['storage', 'MinIO on-prem']);
      doc.setIn(['jobs', 'web-01 files', 'schedules', 0, 'cron'], '0 4 * * *');
    });
    const plan = await run(['plan', '-f', file]);
    expect(plan.code).toBe(12);
    expect(plan.stdout).toMatch(/^Plan: 0 to create, 1 to update, 0 to replace, 0 to delete\./);
    emu.clearRequests();
    const r = await run(['apply', '-f', file, '--yes']);
    expect(r.code).toBe(0);
    expect(changed().map((x) => x.method)).toEqual(['PATCH']);
  });

  it('run_offset, timezone and retention edits of a job schedule show in plan and are sent', async () => {
    const { file, text } = await exported();
    edit(file, text, (doc) => {
      doc.setIn(['jobs', 'web-01 files', 'schedules', 0, 'run_offset'], 15);
      doc.setIn(['jobs', 'shop mysql', 'schedules', 0, 'timezone'], 'Europe/Paris');
      doc.setIn(['jobs', 'git server', 'schedules', 0, 'retention', 'weekly'], 8);
    });
    const plan = await run(['plan', '-f', file]);
    expect(plan.code).toBe(12);
    expect(plan.stdout).toContain('schedules[0].run_offset: 0 -> 15');
    expect(plan.stdout).toContain('schedules[0].timezone: "Europe/Berlin" -> "Europe/Paris"');
    expect(plan.stdout).toContain('schedules[0].retention: "d7 w4 m3" -> "d7 w8 m3"');
    emu.clearRequests();
    expect((await run(['apply', '-f', file, '--yes'])).code).toBe(0);
    expect(changed().map((r) => r.body)).toEqual([
      { retention_hourly: 0, retention_daily: 7, retention_weekly: 8, retention_monthly: 3 },
      { timezone: 'Europe/Paris' },
      { run_offset: 15 },
    ]);
    expect((await run(['plan', '-f', file])).code).toBe(0);
  });

  it('run_offset, timezone and retention edits of droplet and volume schedules show in plan and are sent', async () => {
    const { file, text } = await exported('droplets,volumes');
    edit(file, text, (doc) => {
      doc.setIn(['droplets', 'web-01', 'run_offset'], 6);
      doc.setIn(['volumes', 'pgdata-fra1', 'timezone'], 'Europe/Paris');
      doc.setIn(['volumes', 'uploads-fra1', 'retention', 'monthly'], 12);
    });
    const plan = await run(['plan', '-f', file]);
    expect(plan.code).toBe(12);
    expect(plan.stdout).toContain('      run_offset: 5 -> 6');
    expect(plan.stdout).toContain('      timezone: "Europe/Amsterdam" -> "Europe/Paris"');
    expect(plan.stdout).toContain('      retention: "d7 w4 m3" -> "d7 w4 m12"');
    emu.clearRequests();
    expect((await run(['apply', '-f', file, '--yes'])).code).toBe(0);
    expect(changed().map((r) => r.body)).toEqual([{ run_offset: 6 }, { timezone: 'Europe/Paris' }, { retention: { hourly: 0, daily: 7, weekly: 4, monthly: 12 } }]);
    expect((await run(['plan', '-f', file])).code).toBe(0);
  });
});
