// Backups as code against the emulator's demo team: export, then plan of the
// same file shows no changes; an edited file plans exactly its edits and
// apply makes them with the minimum requests (read back from the emulator's
// request log); a second plan is clean; bad files exit 2 with line numbers
// and send nothing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Every ${env:NAME} of a file, set to a dummy value. */
function secretsOf(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/\$\{env:([A-Z0-9_]+)\}/g)].map((m) => [m[1]!, `value-of-${m[1]}`]));
}

const run = (args: string[], extra: Record<string, string> = {}, input?: string) =>
  runCli(args, { env: { ...emulatorEnv(emu), BACKUPCTL_CONFIG_DIR: config.dir, ...extra }, input, timeoutMs: 30_000 });

const changed = () => apiRequests(emu).filter((r) => r.method !== 'GET');

beforeEach(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(path.join(tmpdir(), 'backupctl-ascode-'));
  config = tempConfigDir();
});
afterEach(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
  config.cleanup();
});

describe('export', () => {
  it('writes every section keyed by name, with secrets as references and comments', async () => {
    const file = path.join(dir, 'backups.yaml');
    const r = await run(['export', '-f', file]);
    expect(r.stderr).toContain(`Wrote ${file}`);
    expect(r.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./backups.schema.json');
    const doc = parseDocument(text).toJS();
    expect(Object.keys(doc)).toEqual(['version', 'storage', 'jobs', 'droplets', 'volumes', 'resources']);
    expect(doc.jobs['shop mysql'].compute).toEqual({ server: 'db-01' });
    expect(doc.jobs['shop mysql'].config.mysql_password).toBe('${env:BACKUPCTL_JOB_SHOP_MYSQL_MYSQL_PASSWORD}');
    expect(doc.storage['Primary object storage'].secret).toBe('${env:BACKUPCTL_STORAGE_PRIMARY_OBJECT_STORAGE_SECRET}');
    // The provider without keys gets no key reference.
    expect(doc.storage['Managed storage'].key).toBeUndefined();
    expect(text).toMatch(/mysql_password: \$\{env:BACKUPCTL_JOB_SHOP_MYSQL_MYSQL_PASSWORD\} # secret: config mysql_password of job "shop mysql"/);
    // No secret value of the seed reaches the file.
    expect(text).not.toContain('hunter2');
    expect(changed()).toEqual([]);
  });

  it('--only picks sections; an unknown one exits 2 naming the allowed ones and sends nothing', async () => {
    const r = await run(['export', '--only', 'jobs,droplets']);
    expect(r.code).toBe(0);
    expect(Object.keys(parseDocument(r.stdout).toJS())).toEqual(['version', 'jobs', 'droplets']);
    emu.clearRequests();
    const bad = await run(['export', '--only', 'jobs,dropplets']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown section "dropplets"');
    expect(bad.stderr).toContain('Allowed: storage,jobs,droplets,volumes,resources.');
    expect(apiRequests(emu)).toEqual([]);
  });

  it('two storage destinations with one name are an error that lists them', async () => {
    const a = await run(['storage', 'add', '--name', 'twin', '--provider', 'cloud_m', '--region', 'eu', '--bucket', 'a', '--json']);
    const b = await run(['storage', 'add', '--name', 'twin', '--provider', 'cloud_m', '--region', 'eu', '--bucket', 'b', '--json']);
    expect([a.code, b.code]).toEqual([0, 0]);
    const ids = [JSON.parse(a.stdout).id, JSON.parse(b.stdout).id];
    const r = await run(['export']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`storage "twin": ids ${ids.join(', ')}`);
  });
});

describe('plan and apply', () => {
  async function exported(): Promise<{ file: string; text: string; env: Record<string, string> }> {
    const file = path.join(dir, 'backups.yaml');
    expect((await run(['export', '-f', file])).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    return { file, text, env: secretsOf(text) };
  }

  it('export then plan of the same file shows no changes (exit 0), with GETs only', async () => {
    const { file, env } = await exported();
    emu.clearRequests();
    const r = await run(['plan', '-f', file], env);
    expect(r.stdout).toMatch(/^No changes: the service matches the file\./);
    expect(r.code).toBe(0);
    expect(apiRequests(emu).length).toBeGreaterThan(0);
    expect(changed()).toEqual([]);
  });

  it('plans exactly the edits, applies them with the minimum requests, and plans clean after', async () => {
    const { file, text, env } = await exported();
    const doc = parseDocument(text);
    // 1. a new storage
    doc.setIn(['storage', 'Backup bucket 2'], doc.createNode({ provider: 'cloud_a', region: 'eu-west-1', bucket: 'acme-2', key: '${env:NEW_KEY}', secret: '${file:new-secret.txt}' }));
    // 2. a job's schedule moved
    doc.setIn(['jobs', 'web-01 files', 'schedules', 0, 'cron'], '30 3 * * *');
    // 3. a job's storage priority changed (the two swap)
    doc.setIn(['jobs', 'git server', 'storage', 0, 'priority'], 2);
    doc.setIn(['jobs', 'git server', 'storage', 1, 'priority'], 1);
    // 4. a droplet's retention changed
    doc.setIn(['droplets', 'web-01', 'retention', 'daily'], 14);
    // 5. a job removed
    doc.deleteIn(['jobs', 'marketing site']);
    writeFileSync(file, doc.toString());
    writeFileSync(path.join(dir, 'new-secret.txt'), 'the-new-secret\n');
    const envs = { ...env, NEW_KEY: 'AKIA-NEW' };

    emu.clearRequests();
    const plan = await run(['plan', '-f', file, '--prune'], envs);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(12);
    const lines = plan.stdout.split('\n');
    expect(lines[0]).toBe('Plan: 1 to create, 3 to update, 0 to replace, 1 to delete.');
    const heads = lines.filter((l) => /^\S/.test(l) && !/^(Plan|Note|Secrets apply sends|Files apply reads):/.test(l));
    expect(heads).toEqual([
      '+   storage "Backup bucket 2"',
      expect.stringMatching(/^~   job "git server" \([0-9a-f-]{36}\)$/),
      expect.stringMatching(/^~   job "web-01 files" \([0-9a-f-]{36}\)$/),
      expect.stringMatching(/^~   droplet "web-01" \(\d+\)$/),
      expect.stringMatching(/^-   job "marketing site" \([0-9a-f-]{36}\)$/),
    ]);
    expect(plan.stdout).toContain('      key: (sensitive)');
    expect(plan.stdout).toContain('      secret: (sensitive)');
    expect(plan.stdout).toContain('      schedules[0].cron: "0 2 * * *" -> "30 3 * * *"');
    expect(plan.stdout).toContain('      storage: "MinIO on-prem:1, Offsite copy:2" -> "Offsite copy:1, MinIO on-prem:2"');
    expect(plan.stdout).toContain('      retention: "d7 w4 m3" -> "d14 w4 m3"');
    expect(plan.stdout).not.toContain('AKIA-NEW');
    expect(plan.stdout).not.toContain('the-new-secret');
    expect(changed()).toEqual([]);

    // Without a terminal, apply needs --yes: exit 2, nothing sent.
    const refused = await run(['apply', '-f', file, '--prune'], envs);
    expect(refused.code).toBe(2);
    expect(changed()).toEqual([]);

    emu.clearRequests();
    const apply = await run(['apply', '-f', file, '--prune', '--yes'], envs);
    expect(apply.stderr).not.toContain('error');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toBe('Applied: 1 created, 3 updated, 0 replaced, 1 deleted.\n');
    const sent = changed().map((r) => `${r.method} ${r.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, '<job>').replace(/\/\d+(\/|$)/g, '/<n>$1')}`);
    expect(sent).toEqual([
      'POST /v1/storage',
      'PATCH /v1/jobs/<job>/storage',
      'PATCH /v1/jobs/<job>/schedules/<n>',
      'PATCH /v1/cloud_i/droplets/<n>',
      'DELETE /v1/jobs/<job>',
    ]);
    const [storagePost, jobStorage, schedule, droplet] = changed();
    expect(storagePost!.body).toEqual({ name: 'Backup bucket 2', provider: 'cloud_a', bucket: 'acme-2', region: 'eu-west-1', key: 'AKIA-NEW', secret: 'the-new-secret' });
    expect(schedule!.body).toEqual({ cron: '30 3 * * *' });
    expect((jobStorage!.body as { storage: Array<{ priority: number }> }).storage.map((s) => s.priority)).toEqual([1, 2]);
    expect(droplet!.body).toEqual({ retention: { hourly: 0, daily: 14, weekly: 4, monthly: 3 } });
    // No secret on stdout or stderr.
    expect(apply.stdout + apply.stderr).not.toContain('the-new-secret');

    emu.clearRequests();
    const again = await run(['plan', '-f', file, '--prune'], envs);
    expect(again.stdout).toMatch(/^No changes/);
    expect(again.code).toBe(0);
    const twice = await run(['apply', '-f', file, '--prune', '--yes'], envs);
    expect(twice.code).toBe(0);
    expect(changed()).toEqual([]);
  });

  it('droplets, volumes and resources: resume, activate with every field, deactivate with --prune', async () => {
    const { file, text, env } = await exported();
    const doc = parseDocument(text);
    doc.setIn(['droplets', 'staging', 'status'], 'active');
    doc.deleteIn(['resources', '1']);
    writeFileSync(file, doc.toString());
    emu.clearRequests();
    const plan = await run(['plan', '-f', file, '--prune'], env);
    expect(plan.code).toBe(12);
    expect(plan.stdout).toContain('      status: "paused" -> "active"');
    expect(plan.stdout).toMatch(/^-   resource "1" \(1\): deactivates its snapshots$/m);
    const apply = await run(['apply', '-f', file, '--prune', '--yes'], env);
    expect(apply.code).toBe(0);
    expect(changed().map((r) => `${r.method} ${r.path.replace(/\/\d+\//, '/<n>/')}`)).toEqual(['PATCH /v1/cloud_i/droplets/<n>/resume', 'PATCH /v1/snapshots/resources/<n>/deactivate']);
    expect((await run(['plan', '-f', file, '--prune'], env)).code).toBe(0);

    // Activating a resource needs its schedule, which the service does not show back: each missing field is named.
    doc.setIn(['resources', '1'], doc.createNode({ activated: true, frequency: 'h24' }));
    writeFileSync(file, doc.toString());
    emu.clearRequests();
    const missing = await run(['plan', '-f', file], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('resources."1": "timezone" is needed to activate snapshot resource 1');
    expect(missing.stderr).toContain('"retention" is needed');
    doc.setIn(['resources', '1'], doc.createNode({ activated: true, frequency: 'h24', timezone: 'UTC', run_offset: 0, retention: { daily: 7 } }));
    writeFileSync(file, doc.toString());
    const act = await run(['apply', '-f', file, '--yes'], env);
    expect(act.code).toBe(0);
    expect(changed().map((r) => [r.path, r.body])).toEqual([
      ['/v1/snapshots/resources/1/activate', { frequency: 'h24', retention_hourly: 0, retention_daily: 7, retention_weekly: 0, retention_monthly: 0, timezone: 'UTC', run_offset: 0 }],
    ]);
  });

  it('a job whose recipe changes is a replace, refused without --allow-replace', async () => {
    const { file, text, env } = await exported();
    const doc = parseDocument(text);
    doc.setIn(['jobs', 'archive files', 'config', 'root_path'], '/srv/archive-2');
    doc.setIn(['jobs', 'archive files', 'recipe_id'], 1);
    writeFileSync(file, doc.toString());
    const plan = await run(['plan', '-f', file], env);
    expect(plan.code).toBe(12);
    expect(plan.stdout).toMatch(/-\/\+ job "archive files" \([0-9a-f-]{36}\): the service cannot change config of a job; replacing it loses the link to its backups/);
    emu.clearRequests();
    const refused = await run(['apply', '-f', file, '--yes'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('give --allow-replace');
    expect(changed()).toEqual([]);
    const ok = await run(['apply', '-f', file, '--yes', '--allow-replace'], env);
    expect(ok.code).toBe(0);
    // Create before delete: the old job goes only once the new one is what the file says.
    expect(changed().map((r) => r.method)).toEqual(['POST', 'DELETE']);
    const created = changed()[0]!.body as Record<string, unknown>;
    expect(created).toMatchObject({ name: 'archive files', recipe_id: 1, compute: { type: 'ss_agent' } });
    expect((await run(['plan', '-f', file], env)).code).toBe(0);
  });

  it('stops at the first failure and says what was done and what was not (a POST is exit 7)', async () => {
    const { file, text, env } = await exported();
    const doc = parseDocument(text);
    doc.setIn(['storage', 'S1'], doc.createNode({ provider: 'cloud_m', region: 'eu', bucket: 's1' }));
    doc.setIn(['storage', 'S2'], doc.createNode({ provider: 'cloud_m', region: 'eu', bucket: 's2' }));
    writeFileSync(file, doc.toString());
    emu.setFaults([{ fault: '500', method: 'POST', path: '/v1/storage', count: 1 }]);
    emu.clearRequests();
    const r = await run(['apply', '-f', file, '--yes'], env);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('Stopped at storage "S1". Done: nothing.');
    expect(r.stderr).toContain('Not done: storage "S1", storage "S2".');
    expect(changed().length).toBe(1);
  });

  it('a bad file exits 2 with each problem at its line and column, and sends nothing', async () => {
    const { file, text, env } = await exported();
    const edited = text
      .replace('    recipe: postgresql', '    recipe: postgresql\n    recipe_idd: 3')
      .replace('cron: 0 4 * * *', 'cron: 99 4 * * *')
      .replace('      - storage: Spaces fra1', '      - storage: Spaces fra9');
    writeFileSync(file, edited);
    const e = edited.split('\n');
    const lineOf = (needle: string) => e.findIndex((l) => l.includes(needle)) + 1;
    const { BACKUPCTL_JOB_SHOP_MYSQL_MYSQL_PASSWORD: _, ...lessEnv } = env;
    emu.clearRequests();
    const r = await run(['plan', '-f', file], lessEnv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // A secret of a job that exists is never sent: its variable may be unset (issue 23, finding 8).
    expect(r.stderr).toMatch(/^error: .*backups\.yaml: 2 problems; nothing was changed\n/);
    expect(r.stderr).toContain(`backups.yaml:${lineOf('recipe_idd')}:5: jobs."api postgres".recipe_idd: unknown key "recipe_idd": did you mean "recipe_id"?`);
    expect(r.stderr).toMatch(new RegExp(`backups\\.yaml:${lineOf('99 4 * * *')}:\\d+: jobs\\."archive files"\\.schedules\\[0\\]\\.cron: "99 4 \\* \\* \\*" is not a valid cron expression`));
    expect(r.stderr).not.toContain('BACKUPCTL_JOB_SHOP_MYSQL_MYSQL_PASSWORD');
    // Problems of the file alone: not even a GET.
    expect(apiRequests(emu)).toEqual([]);

    // A reference to a storage that exists neither in the file nor in the service: read, but nothing changed.
    const second = text.replace('      - storage: Spaces fra1', '      - storage: Spaces fra9');
    writeFileSync(file, second);
    const ref = await run(['apply', '-f', file, '--yes'], env);
    expect(ref.code).toBe(2);
    expect(ref.stderr).toContain(`backups.yaml:${second.split('\n').findIndex((l) => l.includes('Spaces fra9')) + 1}:18: jobs."marketing site".storage[0].storage: no storage named "Spaces fra9" in the file or the service`);
    expect(changed()).toEqual([]);
  });
});

describe('schema file', () => {
  it('prints the JSON Schema of the file, the same as docs/backups.schema.json', async () => {
    const r = await runCli(['schema', 'file']);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout);
    const docs = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'docs', 'backups.schema.json'), 'utf8'));
    expect(schema).toEqual(docs);
    expect(schema.required).toEqual(['version']);
    expect(schema.properties.jobs.additionalProperties.properties.compute.oneOf).toEqual(['server', 'serverless', 'agent'].map((k) => ({ properties: { [k]: true }, required: [k] })));
  });
});
