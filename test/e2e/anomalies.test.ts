// Which backup is clean (issue 33), through the built CLI against the emulator's
// bad night (--bad-night): "file share" has 20 normal nightly tar backups, each
// differing from the one before by exactly four changes, then two nights of
// ransomware; "crm postgres" lost 90% of its orders on the newest night.
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, runCli } from '../helpers/cli.js';
import { emulatorSession, startTestEmulator } from '../helpers/emulator.js';
import { Catalog } from '../../src/state/catalog.js';
import { ListingWriter } from '../../src/catalog/listing.js';

type Json = any;

const session = emulatorSession({ seed: 'demo', badNight: true, bigFile: 1024 * 1024 * 1024, now: Date.now(), timeoutMs: 90_000 });
const { emu, env, cli } = session;

/** The backups of a job, oldest first. */
async function nights(job: string): Promise<Array<{ id: string; created_at: string }>> {
  return (await session.backupsOf(job)).sort((a, b) => a.created_at.localeCompare(b.created_at));
}

let share: Array<{ id: string; created_at: string }>;
let crm: Array<{ id: string; created_at: string }>;

beforeAll(async () => {
  share = await nights('file share');
  crm = await nights('crm postgres');
});

describe('anomalies', () => {
  it('flags the two ransomware nights with their evidence and names the last clean backup', async () => {
    expect(share).toHaveLength(22);
    const r = await cli(['anomalies', 'file share', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Json;
    const backups = doc.jobs[0].backups as Json[];
    expect(backups.map((b) => b.backup_id)).toEqual(share.map((b) => b.id));
    // The 20 normal nights (each grows the journal by 5%, with four changes a night) raise nothing.
    expect(backups.slice(0, 20).map((b) => b.verdict)).toEqual(Array(20).fill('clean'));
    for (const bad of backups.slice(20)) {
      expect(bad.verdict).toBe('anomalous');
      const signals = bad.findings.map((f: Json) => f.signal);
      expect(signals).toEqual(expect.arrayContaining(['ransom-note', 'onion-address', 'high-entropy', 'renamed', 'new-extension']));
      const entropy = bad.findings.find((f: Json) => f.signal === 'high-entropy');
      // 60% of the 60 office documents: 36 files turned random.
      expect(entropy.evidence.high_entropy).toBe(36);
      expect(entropy.evidence.baseline_share).toBe(0);
      const renamed = bad.findings.find((f: Json) => f.signal === 'renamed');
      expect(renamed.evidence.renamed).toBe(36);
      expect(renamed.evidence.examples[0]).toMatch(/^docs\/.+\.(doc|xls) -> docs\/.+\.(doc|xls)\.locked$/);
      expect(bad.findings.find((f: Json) => f.signal === 'ransom-note').evidence.paths).toEqual(['README_RESTORE_FILES.txt']);
      expect(bad.findings.find((f: Json) => f.signal === 'onion-address').evidence.found[0].address).toMatch(/^[a-z2-7]{56}\.onion$/);
      expect(bad.last_clean.id).toBe(share[19]!.id);
    }
    expect(doc.jobs[0].last_clean.id).toBe(share[19]!.id);
  });

  it('flags the table that lost 90% of its rows, and nothing else of the job', async () => {
    const r = await cli(['anomalies', 'crm postgres', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const backups = (JSON.parse(r.stdout) as Json).jobs[0].backups as Json[];
    expect(backups.slice(0, 21).every((b) => b.verdict === 'clean')).toBe(true);
    const newest = backups[21];
    expect(newest.verdict).toBe('anomalous');
    const shrunk = newest.findings.find((f: Json) => f.signal === 'table-shrunk');
    expect(shrunk.evidence.table).toBe('public.orders');
    expect(shrunk.evidence.rows).toBe(85);
    expect(shrunk.evidence.lost_share).toBeGreaterThan(0.85);
    expect(newest.last_clean.id).toBe(crm[20]!.id);
  });

  it('--check fails with exit 17 and names the last clean backup; --ack accepts a night as the new normal', async () => {
    const check = await cli(['anomalies', 'crm postgres', '--check', '--offline']);
    expect(check.code).toBe(17);
    expect(check.stderr).toContain(`last clean backup ${crm[20]!.id}`);
    expect(check.stdout).toContain('table-shrunk');
    // An id prefix, as every backup argument takes (issue 42.13: it was sent as the id, 404).
    const ack = await cli(['anomalies', 'crm postgres', '--ack', crm[21]!.id.slice(0, 8), '--note', 'orders archived by design']);
    expect(ack.code, ack.stderr).toBe(0);
    expect(ack.stderr).toContain(`backup ${crm[21]!.id} accepted`);
    const again = await cli(['anomalies', 'crm postgres', '--check', '--offline', '--json']);
    expect(again.code, again.stderr).toBe(0);
    const newest = (JSON.parse(again.stdout) as Json).jobs[0].backups.at(-1);
    expect(newest.verdict).toBe('acknowledged');
    expect(newest.ack.note).toBe('orders archived by design');
    // The text shows it as such.
    const text = await cli(['anomalies', 'crm postgres', '--offline']);
    expect(text.stdout).toMatch(/ACKNOWLEDGED \(acknowledged .*orders archived by design\)/);
  });

  it('prints Prometheus series per job', async () => {
    const r = await cli(['anomalies', 'file share', '--offline', '-o', 'prometheus']);
    expect(r.code, r.stderr).toBe(0);
    // job_id and job_name, as every other job series (issue 42.13).
    expect(r.stdout).toMatch(/backupctl_anomalous_backups\{job_id="[^"]+",job_name="file share"\} 2/);
    expect(r.stdout).toMatch(/backupctl_anomaly_findings\{job_id="[^"]+",job_name="file share",signal="ransom-note"\} 1/);
    expect(r.stdout).not.toMatch(/\{job="/);
  });

  it('refuses a bad threshold setting with exit 2, naming it and its range', async () => {
    const r = await cli(['anomalies', 'file share', '--offline'], { BACKUPCTL_ANOMALY_ENTROPY_SHARE: '0' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('BACKUPCTL_ANOMALY_ENTROPY_SHARE');
    expect(r.stderr).toContain('from 0.01 to 1');
  });
});

describe('ls, find, diff, restore-file', () => {
  it('diff of two normal nights prints exactly the four changes and the matching statistics', async () => {
    const a = share[18]!;
    const b = share[19]!;
    const r = await cli(['diff', 'file share', a.id, b.id]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const changes = lines.filter((l) => /^[-+MTU] {4}/.test(l));
    // Night 19 against night 18: the journal keeps 8 days, config/app.conf names the night, run.sh's mode flips.
    expect(changes).toEqual(['U    bin/run.sh', 'M    config/app.conf', '-    journal/day-11.txt', '+    journal/day-19.txt']);
    expect(r.stdout).toContain('Files:        1 added, 1 removed, 1 changed, 1 mode or owner only');
    expect(r.stdout).toContain('Directories:  0 added, 0 removed');
    const stat = await cli(['diff', 'file share', a.id, b.id, '--json-lines']);
    const records = stat.stdout.trim().split('\n').map((l) => JSON.parse(l) as Json);
    expect(records.filter((x) => x.record === 'change')).toHaveLength(4);
    const s = records.at(-1);
    expect(s.record).toBe('statistics');
    expect(s.files).toEqual({ added: 1, removed: 1, changed: 1, metadata: 1 });
    expect(s.bytes.added).toBe(Math.round(12_000 * 1.05 ** 19));
    expect(s.bytes.removed).toBe(Math.round(12_000 * 1.05 ** 11));
  });

  it('diff between the last clean and the bad night shows the renames, and of two dumps the rows per table', async () => {
    const r = await cli(['diff', 'file share', share[19]!.id, share[20]!.id, '--stat']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Files:        38 added, 37 removed, 1 changed, 1 mode or owner only');
    const sql = await cli(['diff', 'crm postgres', crm[20]!.id, crm[21]!.id]);
    expect(sql.code, sql.stderr).toBe(0);
    expect(sql.stdout).toContain('-755 rows public.orders (840 -> 85)');
    expect(sql.stdout).toContain('+3 rows public.customers (260 -> 263)');
    expect(sql.stdout).not.toContain('Files:');
  });

  it('ls lists a folder, long and as JSON', async () => {
    const r = await cli(['ls', 'file share', share[19]!.id, 'config', '--long']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      'drwxr-xr-x  0/0                0  2024-03-01 00:00  config/',
      '-rw-r--r--  0/0               67  2024-03-20 00:00  config/app.conf',
    ]);
    const json = await cli(['ls', 'file share', share[19]!.id, 'bin', '--json']);
    expect((JSON.parse(json.stdout) as Json[]).map((e) => [e.path, e.mode.toString(8)])).toEqual([
      ['bin', '755'],
      ['bin/run.sh', '744'],
    ]);
    const missing = await cli(['ls', 'file share', share[19]!.id, 'no/such/path']);
    expect(missing.code).toBe(5);
  });

  it('reads a zip member by member: ls shows its listing, anomalies flags its encrypted members', async () => {
    // "share zip": the files of "file share" as a .zip, 20 normal nights then two of ransomware.
    const zips = await nights('share zip');
    expect(zips).toHaveLength(22);
    const r = await cli(['anomalies', 'share zip', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const backups = (JSON.parse(r.stdout) as Json).jobs[0].backups as Json[];
    expect(backups.slice(0, 20).map((b) => b.verdict)).toEqual(Array(20).fill('clean'));
    for (const bad of backups.slice(20)) {
      expect(bad.verdict).toBe('anomalous');
      expect(bad.findings.map((f: Json) => f.signal)).toEqual(expect.arrayContaining(['ransom-note', 'onion-address', 'high-entropy', 'renamed']));
      expect(bad.findings.find((f: Json) => f.signal === 'high-entropy').evidence.high_entropy).toBe(36);
      expect(bad.findings.find((f: Json) => f.signal === 'ransom-note').evidence.paths).toEqual(['README_RESTORE_FILES.txt']);
    }
    expect((JSON.parse(r.stdout) as Json).jobs[0].last_clean.id).toBe(zips[19]!.id);
    // The listing came from the zip's members (no second download: the catalog has it).
    const ls = await cli(['ls', 'share zip', zips[21]!.id, 'config', '--long']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout.trim().split('\n')).toEqual(['-rw-r--r--  0/0               67  2024-01-01 00:00  config/app.conf']);
    const docs = JSON.parse((await cli(['ls', 'share zip', zips[21]!.id, 'docs/finance', '--json'])).stdout) as Json[];
    const locked = docs.filter((e) => e.path.endsWith('.locked'));
    expect(locked.length).toBeGreaterThan(0);
    expect(locked.every((e: Json) => e.type === 'f' && e.size >= 1200)).toBe(true);
  });

  it('find names the backups that hold a path, newest first', async () => {
    const r = await cli(['find', 'file share', 'README_RESTORE_*', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([share[21]!.id, share[20]!.id]);
    const none = await cli(['find', 'file share', '*.nothing']);
    expect(none.code).toBe(9);
  });

  it('restore-file streams one file to stdout and a folder into a new folder, without the links', async () => {
    const r = await cli(['restore-file', 'file share', share[19]!.id, 'config/app.conf', '--output', '-']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('# file share\nroot = /srv/share\nlast_sync_night = 19\nquota_gb = 200\n');
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-restore-file-'));
    try {
      const d = await cli(['restore-file', 'file share', share[19]!.id, 'docs/hr', '--dir', dir]);
      expect(d.code, d.stderr).toBe(0);
      const files = readdirSync(path.join(dir, 'docs', 'hr'));
      expect(files.length).toBe(24);
      expect(readdirSync(dir)).toEqual(['docs']);
      // Not empty any more: a second restore into it is refused.
      const again = await cli(['restore-file', 'file share', share[19]!.id, 'docs/hr', '--dir', dir]);
      expect(again.code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('restore-file refuses a path that leads outside (the unsafe archive\'s ../ entry writes nothing)', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'backupctl-restore-file-unsafe-'));
    const dir = path.join(outside, 'into');
    mkdirSync(dir);
    try {
      const fault = await startTestEmulator({ seed: 'demo', archiveFaults: true, now: Date.now() });
      try {
        const e = { BACKUPCTL_BASE_URL: fault.url, BACKUPCTL_TOKEN: fault.token };
        const latest = await runCli(['jobs', 'backup', 'latest', 'unsafe archive', '--json'], { env: { ...env(), ...e } });
        const id = (JSON.parse(latest.stdout) as Json).id as string;
        const r = await runCli(['restore-file', 'unsafe archive', id, '..', '--dir', dir], { env: { ...env(), ...e }, timeoutMs: 60_000 });
        expect(r.code).not.toBe(0);
        expect(existsSync(path.join(outside, 'escaped-by-archive.txt'))).toBe(false);
      } finally {
        await fault.close();
      }
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('restore-file of one member of a 1 GiB archive stays under 150 MB of memory', async () => {
    const rssFile = path.join(session.state, 'rss.txt');
    const backup = JSON.parse((await cli(['jobs', 'backup', 'latest', 'big file', '--json'])).stdout) as Json;
    const r = await cli(['restore-file', 'big file', backup.id, 'data/volume-015.img', '--output', '-'], {
      NODE_OPTIONS: `--import ${path.join(ROOT, 'bench', 'rss-hook.mjs')}`,
      BENCH_RSS_FILE: rssFile,
    }, 240_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdoutBytes?.length ?? Buffer.byteLength(r.stdout, 'latin1')).toBeGreaterThan(1024 * 1024);
    const kib = Number(readFileSync(rssFile, 'utf8'));
    expect(kib).toBeGreaterThan(10_000);
    expect(kib).toBeLessThan(150 * 1024);
  }, 300_000);

  it('diffs two listings of a million entries within bounded memory', async () => {
    // Two backups of "file share" get made-up listings of 1,000,000 entries each in the catalog, so diff reads no archive.
    const catalog = new Catalog(path.join(session.state, 'backupctl'), emu.url, emu.token);
    const [a, b] = [share[0]!, share[1]!];
    for (const [n, backup] of [a, b].entries()) {
      const writer = new ListingWriter(catalog.listingPath(backup.id, 0));
      // In an order that is not the path order: the writer sorts in runs and merges them.
      for (let i = 0; i < 1_000_000; i++) {
        const k = (i * 7919) % 1_000_000;
        if (n === 1 && k % 100_000 === 0) continue; // 10 removed in b
        await writer.add({ path: `d${k % 1000}/f${k}.txt`, type: 'f', size: 100 + (k % 7), mode: 0o644, uid: 0, gid: 0, mtime: 0, crc: n === 1 && k === 12_345 ? 'ffffffff' : '00000000' });
      }
      if (n === 1) await writer.add({ path: 'zzz/new.txt', type: 'f', size: 5, mode: 0o644, uid: 0, gid: 0, mtime: 0, crc: '12345678' });
      await writer.finish();
      await catalog.save({
        version: 1,
        backup_id: backup.id,
        job_id: null,
        created_at: backup.created_at,
        recorded_at: new Date().toISOString(),
        recorded_by: 'scan',
        read_verdict: 'passed',
        size_bytes: 1,
        duration_s: null,
        files: [{ name: 'made-up.tar', bytes: 1, gzip: false, kind: 'tar', listing: '0.ndjson.gz' }],
      });
    }
    expect(statSync(catalog.listingPath(a.id, 0)).size).toBeGreaterThan(1_000_000);
    const rssFile = path.join(session.state, 'rss-diff.txt');
    const r = await cli(['diff', 'file share', a.id, b.id, '--stat', '--json-lines'], {
      NODE_OPTIONS: `--import ${path.join(ROOT, 'bench', 'rss-hook.mjs')}`,
      BENCH_RSS_FILE: rssFile,
    }, 240_000);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Json;
    expect(s.files).toEqual({ added: 1, removed: 10, changed: 1, metadata: 0 });
    const kib = Number(readFileSync(rssFile, 'utf8'));
    // Two million entries read; a listing held in memory would take several hundred MB.
    expect(kib).toBeLessThan(150 * 1024);
    writeFileSync(path.join(session.state, 'done'), '');
  }, 300_000);
});
