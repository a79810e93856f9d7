// Every command that prints JSON has a schema (`backupctl schema <command>`),
// the schema compiles under ajv's strict mode, and the command's real --json
// output, run against the emulator, is valid against it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ROOT, runCli } from '../helpers/cli.js';
import { apiFetch, emulatorEnv, withEmulator } from '../helpers/emulator.js';
import type { Manifest } from '../../src/contract/spec.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8')) as Manifest;

/** Commands whose stdout is not a JSON document of a fixed shape, and why. */
const NOT_JSON: Record<string, string> = {
  'auth token': 'prints the token as text, for $(...)',
  'config path': 'prints a path as text, for $(...)',
  api: "prints the service's answer as it came",
  schema: 'prints a JSON Schema (described by the 2020-12 meta-schema)',
  completion: 'prints a shell script',
};
const printsJson = manifest.commands.filter((c) => !c.hidden && c.output.kind !== 'none' && !(c.path.join(' ') in NOT_JSON));

function strictAjv(): Ajv2020 {
  // Strict mode; union types (["string","null"]) are how the lenient schemas say nullable.
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

describe('a schema for every JSON output', () => {
  it('answers `schema <command>` for every command that prints JSON, with a schema ajv compiles in strict mode', async () => {
    const ajv = strictAjv();
    const failures: string[] = [];
    for (const c of printsJson) {
      const r = await runCli(['schema', ...c.path]);
      if (r.code !== 0) {
        failures.push(`${c.path.join(' ')}: exit ${r.code}: ${r.stderr.trim()}`);
        continue;
      }
      try {
        ajv.compile(JSON.parse(r.stdout));
      } catch (err) {
        failures.push(`${c.path.join(' ')}: ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('names only commands that exist among those without JSON', () => {
    for (const name of Object.keys(NOT_JSON)) expect(manifest.commands.some((c) => c.path.join(' ') === name), name).toBe(true);
  });
});

describe("each command's real --json output is valid against its schema", () => {
  // With the bad night: its "file share" is a tar job for ls, find and diff.
  const emu = withEmulator({ badNight: true });
  let dir = '';
  let env: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const first = async (apiPath: string, field = 'id'): Promise<string> => {
    const body = (await (await apiFetch(emu, apiPath)).json()) as { data: Array<Record<string, unknown>> };
    const value = body.data[0]?.[field];
    if (value === undefined) throw new Error(`${apiPath} has no records in the demo seed`);
    return String(value);
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'backupctl-schemas-'));
    env = { ...emulatorEnv(emu), BACKUPCTL_CONFIG_DIR: path.join(dir, 'config'), XDG_STATE_HOME: path.join(dir, 'state') };
    ids.key = await first('/v1/ssh-keys');
    ids.snapshot = await first('/v1/snapshots');
    ids.resource = await first('/v1/snapshots/resources');
    ids.droplet = await first('/v1/cloud_i/droplets');
    ids.volume = await first('/v1/cloud_i/volumes');
    ids.job = await first('/v1/jobs');
    ids.server = await first('/v1/servers');
    ids.storage = await first('/v1/storage');
    ids.restore = await first('/v1/restore-jobs');
    ids.backup = await first(`/v1/jobs/${ids.job}/backups?status=completed&sort=-created_at`);
    // Two completed backups of a tar job, for ls and diff.
    const jobs = ((await (await apiFetch(emu, '/v1/jobs?page_size=100')).json()) as { data: Array<{ id: string; name: string }> }).data;
    const tarJob = jobs.find((j) => j.name === 'file share')!.id;
    const tars = ((await (await apiFetch(emu, `/v1/jobs/${tarJob}/backups?status=completed&sort=-created_at`)).json()) as { data: Array<{ id: string }> }).data;
    ids.tarBackup = tars[0]!.id;
    ids.tarOlder = tars[1]!.id;
    const pem = generateKeyPairSync('rsa', { modulusLength: 4096 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(path.join(dir, 'backup.pub'), pem);
    writeFileSync(path.join(dir, 'secret.txt'), 'S3CRET\n');
    // A stored profile, so profiles list and config list show real settings.
    expect((await runCli(['config', 'set', 'timeout', '45s'], { env })).code).toBe(0);
    // A backups file with a change in it, for plan and apply (sections without secrets).
    const exported = await runCli(['export', '--only', 'droplets,volumes'], { env });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/frequency: \d+/);
    writeFileSync(path.join(dir, 'backups.yaml'), exported.stdout.replace(/frequency: \d+/, 'frequency: 7'));
    writeFileSync(path.join(dir, 'assure.yaml'), 'version: 1\nassurance:\n  "api postgres":\n    verify_every: 1d\n');
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The arguments after the command words that make each command print its JSON. */
  const argsOf = (): Record<string, string[]> => ({
    'auth status': [],
    'profiles list': [],
    version: [],
    'config get': ['timeout'],
    'config list': [],
    doctor: [],
    'servers list': [],
    'servers add': ['--name', 'schema-check', '--host', '203.0.113.77', '--user', 'root', '--key', ids.key!],
    'servers code': ['--key', ids.key!],
    'ssh-keys list': [],
    'ssh-keys create': ['--name', 'schema-check'],
    'snapshots list': [],
    'snapshots get': [ids.snapshot!],
    'accounts list': [],
    'accounts add': ['--name', 'schema-check', '--provider', 'cloud_e', '--key', 'K-1', '--zone', 'europe-west4-a'],
    'resources list': [],
    'resources get': [ids.resource!],
    'storage list': [],
    'storage add': ['--name', 'schema-check', '--provider', 'cloud_a', '--region', 'eu-central-1', '--bucket', 'b', '--key', 'K', '--secret-file', path.join(dir, 'secret.txt')],
    'droplets list': [],
    'droplets get': [ids.droplet!],
    'droplets snapshot list': [ids.droplet!],
    'volumes list': [],
    'volumes get': [ids.volume!],
    'volumes snapshot list': [ids.volume!],
    'jobs list': [],
    'jobs get': [ids.job!],
    'jobs create': ['--name', 'schema-check', '--recipe-id', '3', '--server', ids.server!, '--config', 'root_path=/srv', '--storage', ids.storage!, '--cron', '0 2 * * *'],
    'jobs backup start': [ids.job!, '--daily'],
    'jobs backup list': [ids.job!],
    'jobs backup latest': [ids.job!, '--status', 'completed'],
    'jobs backup download': [ids.job!, ids.backup!, '--dir', path.join(dir, 'download')],
    'restores list': [],
    'restores get': [ids.restore!],
    'encryption-keys create': ['--name', 'schema-check', '--public-key-file', path.join(dir, 'backup.pub')],
    'backups get': [ids.backup!],
    'jobs backup get': [ids.job!, ids.backup!],
    'backups urls': [ids.backup!],
    status: [],
    export: [],
    plan: ['-f', path.join(dir, 'backups.yaml')],
    apply: ['-f', path.join(dir, 'backups.yaml'), '--yes'],
    report: ['--since', '3d'],
    retention: ['shop mysql'],
    // A job whose newest backup verifies (git server's is the demo's corrupted one: exit 11).
    verify: ['api postgres', '--since', '1d'],
    'restore-test': ['events mongodb'],
    scan: ['file share', '--since', '2d'],
    anomalies: ['file share', '--since', '2d'],
    ls: ['file share', ids.tarBackup!],
    find: ['file share', '*', '--since', '2d'],
    diff: ['file share', ids.tarOlder!, ids.tarBackup!],
    'state migrate': ['--to', path.join(dir, 'state-copy')],
    'assure run': ['-f', path.join(dir, 'assure.yaml')],
    'assure status': ['-f', path.join(dir, 'assure.yaml')],
  });

  it('covers every command that prints JSON', () => {
    expect(printsJson.map((c) => c.path.join(' ')).filter((n) => !(n in argsOf()) && n !== 'jobs backup delete')).toEqual([]);
  });

  it('is valid for every command, and for jobs backup start --wait and jobs backup delete --all', async () => {
    const ajv = strictAjv();
    const runs: Array<[string[], string[]]> = Object.entries(argsOf()).map(([name, args]) => [name.split(' '), args]);
    // Last: --wait adds the backup as it ended; delete --all empties the job's backups.
    runs.push([['jobs', 'backup', 'start'], [ids.job!, '--wait', '--poll-interval', '1s']]);
    runs.push([['jobs', 'backup', 'delete'], [ids.job!, '--all', '--yes']]);
    const failures: string[] = [];
    for (const [words, args] of runs) {
      const name = [...words, ...args].join(' ');
      const schema = await runCli(['schema', ...words]);
      const r = await runCli([...words, ...args, '--json'], { env });
      // plan exits 12 when it has changes to show (and still prints them).
      const expected = words[0] === 'plan' ? 12 : 0;
      if (schema.code !== 0 || r.code !== expected) {
        failures.push(`${name}: schema exit ${schema.code}, command exit ${r.code}: ${schema.stderr.trim()} ${r.stderr.trim()}`);
        continue;
      }
      const validate = ajv.compile(JSON.parse(schema.stdout));
      const output = JSON.parse(r.stdout) as unknown;
      if (!validate(output)) failures.push(`${name}: ${ajv.errorsText(validate.errors)}`);
      if (Array.isArray(output) && output.length === 0) failures.push(`${name}: printed an empty list; nothing was checked`);
      if (words[0] === 'plan' && (output as { changes: unknown[] }).changes.length === 0) failures.push(`${name}: planned no change; nothing was checked`);
    }
    expect(failures).toEqual([]);
  }, 240_000);
});
