// One state the team shares (issue 44 §3), beyond the marks: the catalog's fingerprints and listings, the
// anomalies acknowledged (--ack), verify's ledger, retention's predictions, in a PostgreSQL database the test
// starts itself (test/helpers/pg-server.ts). Two config folders on one state see each other's records through
// the commands; two services on one state never mix; `state migrate` copies every kind there and back; an
// unreachable state is exit 3 for each command that needs it, and nothing falls back to the state folder.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { withEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';
import { startPgServer, type PgServer } from '../helpers/pg-server.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/state/pg.js';
import { serviceKey } from '../../src/state/marks.js';
import { statusDocumentSchema } from '../../src/status/document.js';
import { PgLedger } from '../../src/state/pg-ledger.js';
import { PgCatalog } from '../../src/state/pg-catalog.js';
import { readPgPredictions, writePgPredictions } from '../../src/state/pg-predictions.js';
import type { BackupFingerprint } from '../../src/state/catalog.js';

type Json = any;

let pg: PgServer;
let work: string;
beforeAll(async () => {
  pg = await startPgServer();
  pg.sql('CREATE DATABASE team_kinds');
  pg.sql('CREATE DATABASE team_copy');
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-pgkinds-'));
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const urlOf = (db: string) => `postgres://postgres:superpw@/${db}?host=${pg.dir}`;

interface Member {
  cfg: string;
  state: string;
}

/** A member of the team: a config folder and a state folder of their own; `profileUrl` puts state_url in the profile. */
function member(name: string, profileUrl?: string): Member {
  const cfg = path.join(work, name, 'config');
  const state = path.join(work, name, 'state');
  mkdirSync(cfg, { recursive: true });
  mkdirSync(state, { recursive: true });
  if (profileUrl) writeFileSync(path.join(cfg, 'config.json'), JSON.stringify({ current_profile: 'default', profiles: { default: { state_url: profileUrl } } }));
  return { cfg, state };
}

const emuA = withEmulator({ seed: 'demo', badNight: true, now: Date.now() });
// Another service (another base URL and token) with the same jobs: the same names, other backups.
const emuB = withEmulator({ seed: 'demo', badNight: true, now: Date.now() });

function cliOf(emu: Emulator) {
  return (who: Member, args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(args, { env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: who.cfg, XDG_STATE_HOME: who.state, ...env }, timeoutMs: 90_000 });
}
const cli = cliOf(emuA);
const cliB = cliOf(emuB);

/** What a state folder holds, by kind. */
const folderKinds = (who: Member) =>
  ['catalog', 'verify-ledger.json', 'retention-predictions.json', 'marks.json', 'schedule-timing.json'].filter((f) => existsSync(path.join(who.state, 'backupctl', f)));

/** The newest backup of the crm job (anomalous on the bad night), and the verdict anomalies gives it. */
async function newestCrm(run: ReturnType<typeof cliOf>, who: Member, env: Record<string, string> = {}, offline = true): Promise<Json> {
  const r = await run(who, ['anomalies', 'crm postgres', ...(offline ? ['--offline'] : []), '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Json).jobs[0].backups.at(-1);
}

/** The first file of a verify of the newest backup of `api postgres`. */
async function verifyFile(run: ReturnType<typeof cliOf>, who: Member, env: Record<string, string> = {}): Promise<Json> {
  const r = await run(who, ['verify', 'api postgres', '--latest', '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).backups[0].files[0];
}

async function auditOf(run: ReturnType<typeof cliOf>, who: Member, env: Record<string, string> = {}): Promise<Json> {
  const r = await run(who, ['retention', 'api postgres', '--audit', '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Json[])[0];
}

describe('the catalog, acknowledgements, ledger and predictions in a PostgreSQL state', () => {
  it("two config folders on one state see each other's catalog, acknowledgements, ledger entries and predictions", async () => {
    const alice = member('alice');
    const bob = member('bob', urlOf('team_kinds'));
    const shared = { BACKUPCTL_STATE_URL: urlOf('team_kinds') };

    // Alice reads the crm job into the catalog and accepts its bad night as the new normal.
    const before = await newestCrm(cli, alice, shared, false);
    expect(before.verdict).toBe('anomalous');
    const ack = await cli(alice, ['anomalies', 'crm postgres', '--ack', before.backup_id, '--note', 'orders archived by design'], shared);
    expect(ack.code, ack.stderr).toBe(0);
    // Bob judges the catalog alone (--offline: nothing is read from the service's files): Alice's fingerprints and her --ack.
    const seen = await newestCrm(cli, bob);
    expect(seen).toMatchObject({ backup_id: before.backup_id, verdict: 'acknowledged', ack: { note: 'orders archived by design' } });

    // ls and find: Alice reads the file share's backups into the catalog; Bob lists and searches the shared listings.
    const judged = await cli(alice, ['anomalies', 'file share', '--json'], shared);
    expect(judged.code, judged.stderr).toBe(0);
    const nights = (JSON.parse(judged.stdout) as Json).jobs[0].backups as Json[];
    const bad = nights.filter((b) => b.verdict === 'anomalous').map((b) => b.backup_id).reverse();
    expect(bad).toHaveLength(2);
    const lsA = await cli(alice, ['ls', 'file share', bad[0], 'config', '--long'], shared);
    expect(lsA.code, lsA.stderr).toBe(0);
    expect(lsA.stdout).toContain('config/app.conf');
    emuA.clearRequests();
    const lsB = await cli(bob, ['ls', 'file share', bad[0], 'config', '--long']);
    expect(lsB.code, lsB.stderr).toBe(0);
    expect(lsB.stdout).toBe(lsA.stdout);
    const found = await cli(bob, ['find', 'file share', 'README_RESTORE_*', '-q']);
    expect([found.code, found.stdout.trim().split('\n')], found.stderr).toEqual([0, bad]);
    // Bob downloaded nothing: the listings came from the state.
    expect(emuA.requests.filter((r) => r.server === 'files')).toEqual([]);

    // verify's ledger: Bob's verify finds the hash Alice first saw, with her time.
    const first = await verifyFile(cli, alice, shared);
    expect(first.first_seen).toMatch(/^\d{4}-\d\d-\d\dT/);
    const again = await verifyFile(cli, bob);
    expect(again.first_seen).toBe(first.first_seen);

    // retention: Alice's run records the predictions, Bob's --audit reads them.
    const forecast = await cli(alice, ['retention', 'api postgres', '--json'], shared);
    expect(forecast.code, forecast.stderr).toBe(0);
    const generated = (JSON.parse(forecast.stdout) as Json[])[0].generated_at;
    const audit = await auditOf(cli, bob);
    expect(audit.recorded_at).toBe(generated);
    expect(audit.predictions).toBeGreaterThan(0);

    // report remembers each job's schedule timing in the state.
    const report = await cli(alice, ['report', '--json'], shared);
    expect(report.code, report.stderr).toBe(0);
    expect(Number(pg.sql('SELECT count(*) FROM backupctl.schedule_timings', 'team_kinds'))).toBeGreaterThan(0);

    // Nothing of it went to either state folder; without the state URL, Alice's folder knows none of it.
    expect(folderKinds(alice)).toEqual([]);
    expect(folderKinds(bob)).toEqual([]);
    expect((await auditOf(cli, alice)).recorded_at).toBeNull();
    const local = await cli(alice, ['anomalies', 'crm postgres', '--offline', '--json']);
    expect(local.code).toBe(9);

    // The database: the schema's version, every row keyed by this service, and no token or password anywhere.
    expect(pg.sql('SELECT max(version) FROM backupctl.schema_version', 'team_kinds')).toBe(String(SCHEMA_VERSION));
    const tables = ['marks', 'catalog_fingerprints', 'catalog_listings', 'anomaly_acks', 'verify_ledger', 'retention_predictions', 'schedule_timings'];
    for (const t of tables) {
      expect(Number(pg.sql(`SELECT count(*) FROM backupctl.${t}`, 'team_kinds')), t).toBeGreaterThan(0);
      expect(pg.sql(`SELECT string_agg(DISTINCT service, ',') FROM backupctl.${t}`, 'team_kinds'), t).toMatch(/^http:\/\/[^,]+ account:[0-9a-f]{16}$/);
      const dump = pg.sql(`SELECT string_agg(t::text, chr(10)) FROM backupctl.${t} t`, 'team_kinds');
      expect(dump).not.toContain(emuA.token);
      expect(dump).not.toContain('superpw');
    }
  }, 240_000);

  it('two services on one state never mix: the other sees none of the first one\'s records, and its own stay its own', async () => {
    const carol = member('carol', urlOf('team_kinds'));
    // Service B, same job names, the same state: no catalog, no acknowledgement, no predictions of service A.
    const offline = await cliB(carol, ['anomalies', 'crm postgres', '--offline', '--json']);
    expect(offline.code, offline.stderr).toBe(9);
    expect((await auditOf(cliB, carol)).recorded_at).toBeNull();
    const own = await newestCrm(cliB, carol, {}, false);
    expect(own.verdict).toBe('anomalous');
    // Both services hold the same backup ids (one seed): A's acknowledgement of that night stays A's, B's is not acknowledged.
    const a = await newestCrm(cli, member('dan', urlOf('team_kinds')));
    expect(a).toMatchObject({ backup_id: own.backup_id, verdict: 'acknowledged' });
    // B's verify of the same backup and file starts its own ledger entry: its first sighting is now, not A's.
    const since = new Date().toISOString();
    expect((await verifyFile(cliB, carol)).first_seen >= since).toBe(true);
    expect(pg.sql('SELECT count(DISTINCT service) FROM backupctl.catalog_fingerprints', 'team_kinds')).toBe('2');
    expect(pg.sql('SELECT count(DISTINCT service) FROM backupctl.anomaly_acks', 'team_kinds')).toBe('1');
  }, 240_000);

  it('state migrate copies each kind from a folder to PostgreSQL and back, and twice changes nothing', async () => {
    const erin = member('erin');
    // Erin works alone in her state folder: catalog, --ack, ledger, predictions, marks.
    const night = await newestCrm(cli, erin, {}, false);
    expect((await cli(erin, ['anomalies', 'crm postgres', '--ack', night.backup_id, '--note', 'erin says fine'])).code).toBe(0);
    const share = JSON.parse((await cli(erin, ['jobs', 'backup', 'latest', 'file share', '--json'])).stdout) as Json;
    const ls = await cli(erin, ['ls', 'file share', share.id, 'config', '--long']);
    expect(ls.code, ls.stderr).toBe(0);
    const seen = await verifyFile(cli, erin);
    const forecast = await cli(erin, ['retention', 'api postgres', '--json']);
    const generated = (JSON.parse(forecast.stdout) as Json[])[0].generated_at;
    expect((await cli(erin, ['report', '--json'])).code).toBe(0);
    expect(folderKinds(erin)).toEqual(['catalog', 'verify-ledger.json', 'retention-predictions.json', 'marks.json', 'schedule-timing.json']);

    const there = await cli(erin, ['state', 'migrate', '--to', urlOf('team_copy'), '--json']);
    expect(there.code, there.stderr).toBe(0);
    const copied = JSON.parse(there.stdout) as Json;
    expect(copied).toMatchObject({ services: 1, acks: 1, marks: 1 });
    for (const k of ['fingerprints', 'ledger_entries', 'predictions', 'timings']) expect(copied[k], k).toBeGreaterThan(0);
    expect(there.stdout + there.stderr).not.toContain('superpw');

    // Frank uses the database: he sees each kind Erin had, through the commands.
    const frank = member('frank', urlOf('team_copy'));
    expect(await newestCrm(cli, frank)).toMatchObject({ backup_id: night.backup_id, verdict: 'acknowledged', ack: { note: 'erin says fine' } });
    emuA.clearRequests();
    expect((await cli(frank, ['ls', 'file share', share.id, 'config', '--long'])).stdout).toBe(ls.stdout);
    expect(emuA.requests.filter((r) => r.server === 'files')).toEqual([]);
    expect((await verifyFile(cli, frank)).first_seen).toBe(seen.first_seen);
    expect((await auditOf(cli, frank)).recorded_at).toBe(generated);

    // Twice: no row added.
    const rows = () => ['marks', 'catalog_fingerprints', 'catalog_listings', 'anomaly_acks', 'verify_ledger', 'retention_predictions', 'schedule_timings'].map((t) => pg.sql(`SELECT count(*) FROM backupctl.${t}`, 'team_copy'));
    const before = rows();
    const twice = await cli(erin, ['state', 'migrate', '--to', urlOf('team_copy'), '--json']);
    expect(twice.code, twice.stderr).toBe(0);
    expect(JSON.parse(twice.stdout)).toMatchObject({ fingerprints: 0, acks: 0 });
    expect(rows()).toEqual(before);

    // Back to a new folder, from the database: Gina's state folder then holds each kind.
    const gina = member('gina');
    const back = await cli(frank, ['state', 'migrate', '--to', path.join(gina.state, 'backupctl'), '--json']);
    expect(back.code, back.stderr).toBe(0);
    expect(folderKinds(gina)).toEqual(['catalog', 'verify-ledger.json', 'retention-predictions.json', 'marks.json', 'schedule-timing.json']);
    expect(await newestCrm(cli, gina)).toMatchObject({ backup_id: night.backup_id, verdict: 'acknowledged', ack: { note: 'erin says fine' } });
    emuA.clearRequests();
    expect((await cli(gina, ['ls', 'file share', share.id, 'config', '--long'])).stdout).toBe(ls.stdout);
    expect(emuA.requests.filter((r) => r.server === 'files')).toEqual([]);
    expect((await verifyFile(cli, gina)).first_seen).toBe(seen.first_seen);
    expect((await auditOf(cli, gina)).recorded_at).toBe(generated);
  }, 240_000);

  it('an unreachable state database is exit 3 for anomalies, ls, find, retention and report; nothing falls back to the folder', async () => {
    const hal = member('hal');
    const gone = { BACKUPCTL_STATE_URL: `postgres://postgres:hunter2secret@/team_kinds?host=${path.join(work, 'no-such-socket-dir')}` };
    const share = JSON.parse((await cli(hal, ['jobs', 'backup', 'latest', 'file share', '--json'])).stdout) as Json;
    for (const args of [
      ['anomalies', 'crm postgres'],
      ['anomalies', 'crm postgres', '--ack', share.id],
      ['ls', 'file share', share.id],
      ['find', 'file share', 'x'],
      ['scan', 'crm postgres'],
      ['retention', 'api postgres'],
      ['retention', 'api postgres', '--audit'],
      ['report', '--json'],
    ]) {
      const r = await cli(hal, args, gone);
      expect([args.join(' '), r.code], r.stderr).toEqual([args.join(' '), 3]);
      expect(r.stderr).toMatch(/cannot reach the state database postgres:\/\/postgres:\*\*\*@\/team_kinds/);
      expect(r.stderr + r.stdout).not.toContain('hunter2secret');
    }
    expect(folderKinds(hal)).toEqual([]);
  }, 240_000);
});

describe('a state made by an older backupctl', () => {
  it('a database at schema version 2 (marks and leases only) is migrated to the current version, its marks kept', async () => {
    pg.sql('CREATE DATABASE team_v2');
    pg.sql(
      `CREATE SCHEMA backupctl; CREATE TABLE backupctl.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
       ${MIGRATIONS[0]}; ${MIGRATIONS[1]}; INSERT INTO backupctl.schema_version (version) VALUES (1), (2)`,
      'team_v2',
    );
    const ivy = member('ivy', urlOf('team_v2'));
    const latest = JSON.parse((await cli(ivy, ['jobs', 'backup', 'latest', 'api postgres', '--json'])).stdout) as Json;
    const mark = JSON.stringify({ at: new Date().toISOString(), state: 'passed', reason: null, exit_code: 0 }).replace(/'/g, "''");
    const service = serviceKey(emuA.url, emuA.token).replace(/'/g, "''");
    pg.sql(`INSERT INTO backupctl.marks VALUES ('${service}', '${latest.id}', 'verify', '${latest.job_id}', '${latest.created_at}', '${mark}', '${mark}')`, 'team_v2');
    const s = await cli(ivy, ['status', '--json']);
    expect(s.code, s.stderr).toBe(0);
    expect(pg.sql('SELECT string_agg(version::text, \',\' ORDER BY version) FROM backupctl.schema_version', 'team_v2')).toBe(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1).join(','));
    expect(statusDocumentSchema.parse(JSON.parse(s.stdout)).jobs.find((j) => j.name === 'api postgres')!.verify).toMatchObject({ backup_id: latest.id, of_newest: true, state: 'passed' });
    // The new tables are there and used.
    expect((await verifyFile(cli, ivy)).first_seen).toMatch(/^\d{4}-/);
    expect(Number(pg.sql('SELECT count(*) FROM backupctl.verify_ledger', 'team_v2'))).toBeGreaterThan(0);
    expect(folderKinds(ivy)).toEqual([]);
  }, 120_000);
});

describe('many writers of one state at once', () => {
  const S = 'http://127.0.0.1:9 account:0123456789abcdef';

  it('twenty ledgers saving the same file keep the first sighting and the last check; other bytes never replace them', async () => {
    const at = (i: number) => new Date(Date.UTC(2026, 10, 5, 0, i));
    const writers = await Promise.all(Array.from({ length: 20 }, () => PgLedger.open(urlOf('team_kinds'), S)));
    writers.forEach((w, i) => w.record('lw-1', 'db.sql.gz', i === 7 ? 'f'.repeat(64) : 'a'.repeat(64), 100, at(i)));
    await Promise.all(writers.map((w) => w.save()));
    const seen = (await PgLedger.open(urlOf('team_kinds'), S)).lookup('lw-1', 'db.sql.gz');
    // Writer 7 read other bytes: whether it came first or not, the row holds one hash with the earliest time of that hash.
    if (seen?.sha256 === 'a'.repeat(64)) expect(seen).toEqual({ sha256: 'a'.repeat(64), bytes: 100, first_seen: at(0).toISOString(), last_verified: at(19).toISOString() });
    else expect(seen).toEqual({ sha256: 'f'.repeat(64), bytes: 100, first_seen: at(7).toISOString(), last_verified: at(7).toISOString() });
  }, 60_000);

  it('ten writers of one target keep its newest twenty prediction records, none twice', async () => {
    const rec = (i: number) => ({ service: S, target: 'job:pw-1', recorded_at: new Date(Date.UTC(2026, 10, 1, i)).toISOString(), record: { recorded_at: String(i), counts_from: 'service', predictions: [] } });
    await Promise.all(Array.from({ length: 10 }, (_, w) => writePgPredictions(urlOf('team_kinds'), Array.from({ length: 5 }, (_, j) => rec(w * 3 + j)), 20)));
    const rows = (await readPgPredictions(urlOf('team_kinds'), S)).filter((r) => r.target === 'job:pw-1');
    // Records 0..31, some written by two writers: the newest twenty, each once.
    expect(rows.map((r) => r.recorded_at)).toEqual(Array.from({ length: 20 }, (_, i) => rec(12 + i).recorded_at));
  }, 60_000);

  it('ten catalogs writing the same backup at once leave one whole record: its fingerprint and its listings together', async () => {
    const fp = (n: number): BackupFingerprint => ({
      version: 1, backup_id: 'cf-1', job_id: 'j9', created_at: '2026-11-01T00:00:00Z', recorded_at: new Date(Date.UTC(2026, 10, 2, 0, n)).toISOString(),
      recorded_by: 'scan', read_verdict: 'passed', size_bytes: n, duration_s: null,
      files: Array.from({ length: 1 + (n % 3) }, (_, i) => ({ name: `f${i}.tar.gz`, bytes: n, gzip: true, kind: 'tar' as const, listing: `${i}.ndjson.gz` })),
    });
    await Promise.all(Array.from({ length: 10 }, (_, n) => new PgCatalog(urlOf('team_kinds'), S).put(fp(n), fp(n).files.map((f) => ({ name: f.listing!, data: Buffer.from(`writer ${n}`) })))));
    const c = new PgCatalog(urlOf('team_kinds'), S);
    const got = (await c.get('cf-1'))!;
    const bytes = await c.listingBytes(got);
    expect(bytes.map((b) => b.name)).toEqual(got.files.map((f) => f.listing));
    expect(new Set(bytes.map((b) => b.data.toString()))).toEqual(new Set([`writer ${got.size_bytes}`]));
  }, 60_000);
});
