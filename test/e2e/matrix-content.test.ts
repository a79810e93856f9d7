// Issue 42's matrix, content row: the commands that read what a backup holds
// (ls, find, diff, restore-file, scan, anomalies) on the emulator's encrypted
// demo jobs ("web-01 files": a tar.gz and its .sha256 list; "shop mysql": a
// mysqldump.gz), each with the job's key in the config, with --private-key,
// with --decrypt-with, and without a key: then the hint "encrypted: give
// --private-key or set jobs.<job>.private_key", exit 15 where nothing could be
// read (docs/exit-codes.md), 0 with the hint on stderr for scan and anomalies.
// Every test has its own config and state folders: a catalog filled with a key
// would answer the next test from its listings.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { emulatorSession } from '../helpers/emulator.js';

type Json = any;
const T = 180_000;
const DEMO_KEY = path.join(ROOT, 'src/emulator/fixtures/demo-key/demo-private.pem');
const FILES = 'web-01 files';
const MYSQL = 'shop mysql';
const HINT = (job: string) => `encrypted: give --private-key or set jobs.${job}.private_key`;

const session = emulatorSession({ seed: 'demo', now: Date.now(), timeoutMs: 120_000, foldersPerTest: true });
const { cli } = session;

let work: string;
let filter: string;
let files: Array<{ id: string; created_at: string }>;
let dumps: Array<{ id: string; created_at: string }>;

/** The service's scheme with the openssl command line, as docs/verify.md shows it for --decrypt-with. */
const OPENSSL_FILTER = (key: string) => `#!/bin/sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/in"
printf '%s' "$BACKUPCTL_ENCRYPTION_KEY" | base64 -d > "$tmp/sealed"
for pad in oaep pkcs1; do
  openssl pkeyutl -decrypt -inkey '${key}' -pkeyopt rsa_padding_mode:$pad -in "$tmp/sealed" -out "$tmp/pass" 2>/dev/null || continue
  for opts in "-aes-256-cbc -md sha256" "-aes-256-cbc -pbkdf2" "-aes-256-cbc -md md5" "-aes-256-ctr -pbkdf2"; do
    openssl enc -d $opts -pass file:"$tmp/pass" -in "$tmp/in" -out "$tmp/out" 2>/dev/null || continue
    case "$(head -c2 "$tmp/out" | od -An -tx1 | tr -d ' \\n')" in 1f8b) cat "$tmp/out"; exit 0;; esac
    if LC_ALL=C grep -Eq '^[0-9a-f]{64}  ' "$tmp/out"; then cat "$tmp/out"; exit 0; fi
  done
done
echo "no variant opened the file" >&2
exit 1
`;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-matrix-content-'));
  filter = path.join(work, 'decrypt.sh');
  writeFileSync(filter, OPENSSL_FILTER(DEMO_KEY));
  chmodSync(filter, 0o755);
  const completed = async (job: string) =>
    (await session.backupsOf(job, 'sort=-created_at')).filter((b) => b.status === 'completed' && b.files.length);
  files = await completed(FILES);
  dumps = await completed(MYSQL);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The three ways to give a key: each returns the flags to add (the config way sets the job's setting first). */
const WAYS: Record<string, (job: string) => Promise<string[]>> = {
  "the job's configured key": async (job) => {
    const set = await cli(['config', 'set', `jobs.${job}.private_key`, DEMO_KEY]);
    expect(set.code, set.stderr).toBe(0);
    return [];
  },
  '--private-key': async () => ['--private-key', DEMO_KEY],
  '--decrypt-with': async () => ['--decrypt-with', filter],
};

for (const [way, keyFlags] of Object.entries(WAYS)) {
  describe(`with ${way}`, () => {
    it('ls, find, restore-file and diff read the tar inside the encrypted web-01 files backups', async () => {
      const flags = await keyFlags(FILES);
      const ls = await cli(['ls', FILES, 'latest', '--json', ...flags]);
      expect(ls.code, ls.stderr).toBe(0);
      const entries = JSON.parse(ls.stdout) as Json[];
      const file = entries.find((e) => e.type === 'f' && e.size > 0);
      expect(file, ls.stdout.slice(0, 300)).toBeDefined();
      expect(ls.stderr).not.toContain('encrypted:');

      const base = (file.path as string).split('/').pop()!;
      const find = await cli(['find', FILES, base, '--since', '2d', '-q', ...flags]);
      expect(find.code, find.stderr).toBe(0);
      expect(find.stdout.trim().split('\n')).toContain(files[0]!.id);

      const one = await cli(['restore-file', FILES, 'latest', file.path, '--output', '-', ...flags]);
      expect(one.code, one.stderr).toBe(0);
      expect(one.stdoutBytes!.length).toBe(file.size);

      const diff = await cli(['diff', FILES, files[1]!.id, 'latest', '--json', ...flags]);
      expect(diff.code, diff.stderr).toBe(0);
      const d = JSON.parse(diff.stdout) as Json;
      expect(d.backup_b).toBe(files[0]!.id);
      expect(d.files.added + d.files.removed + d.files.changed).toBeGreaterThan(0);
    }, T);

    it('diff of two encrypted shop mysql dumps shows their tables; scan and anomalies read the content', async () => {
      const flags = await keyFlags(MYSQL);
      const diff = await cli(['diff', MYSQL, dumps[1]!.id, dumps[0]!.id, '--json', ...flags]);
      expect(diff.code, diff.stderr).toBe(0);
      // Read as SQL dumps (the tables compared; two nights of the demo may hold the same rows).
      expect(Array.isArray((JSON.parse(diff.stdout) as Json).tables)).toBe(true);

      // Three days, so that two nightly backups are inside at any minute: in the quarter hour after a nightly
      // run is scheduled, its backup is not made yet and the one two days back started a minute before `2d`.
      const scanFlags = await keyFlags(FILES);
      const scan = await cli(['scan', FILES, '--since', '3d', '--json', ...scanFlags]);
      expect(scan.code, scan.stderr).toBe(0);
      const fps = (JSON.parse(scan.stdout) as Json).fingerprints as Json[];
      expect(fps.length).toBeGreaterThanOrEqual(2);
      for (const fp of fps) {
        expect(fp.read_verdict).toBe('passed');
        expect(fp.files.find((f: Json) => f.name.endsWith('.tar.gz'))).toMatchObject({ kind: 'tar', gzip: true });
        for (const f of fp.files) expect(f.encrypted).toBeUndefined();
      }
      expect(scan.stderr).not.toContain('encrypted:');

      const anomalies = await cli(['anomalies', MYSQL, '--since', '3d', '--json', ...flags]);
      expect(anomalies.code, anomalies.stderr).toBe(0);
      const backups = (JSON.parse(anomalies.stdout) as Json).jobs[0].backups as Json[];
      expect(backups.length).toBeGreaterThanOrEqual(2);
      for (const b of backups) {
        expect(b.verdict).not.toBe('unchecked');
        expect(b.encrypted).toBeUndefined();
      }
      // What anomalies read is in the catalog: the rows of every table of the dumps.
      const dumpsRead = await cli(['scan', MYSQL, '--since', '3d', '--json', ...flags]);
      expect(dumpsRead.code, dumpsRead.stderr).toBe(0);
      for (const fp of (JSON.parse(dumpsRead.stdout) as Json).fingerprints as Json[]) {
        expect(Object.keys(fp.files[0].sql.tables)).toEqual(expect.arrayContaining(['customers', 'orders']));
      }
    }, T);
  });
}

describe('without a key', () => {
  it('ls, find, diff and restore-file say how to give one: exit 15, nothing on stdout', async () => {
    for (const [args, job] of [
      [['ls', FILES, 'latest'], FILES],
      [['find', FILES, '*', '--since', '2d'], FILES],
      [['diff', FILES, files[1]!.id, files[0]!.id], FILES],
      [['restore-file', FILES, 'latest', 'data', '--output', '-'], FILES],
      [['diff', MYSQL, dumps[1]!.id, dumps[0]!.id], MYSQL],
    ] as Array<[string[], string]>) {
      const r = await cli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(15);
      expect(r.stderr).toContain(HINT(job));
      expect(r.stdout).toBe('');
    }
  }, T);

  it('scan records the sizes and warns; anomalies leaves the backups unchecked and says why (exit 0)', async () => {
    const scan = await cli(['scan', FILES, '--since', '2d', '--json']);
    expect(scan.code, scan.stderr).toBe(0);
    expect(scan.stderr).toContain(HINT(FILES));
    const fps = (JSON.parse(scan.stdout) as Json).fingerprints as Json[];
    for (const fp of fps) expect(fp.files.every((f: Json) => f.encrypted === true)).toBe(true);

    const text = await cli(['anomalies', FILES, '--since', '2d']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`    ${HINT(FILES)}: not judged, not in the baseline`);
    expect(text.stdout).not.toContain("its read did not pass verify's checks");
    const json = await cli(['anomalies', FILES, '--since', '2d', '--json']);
    for (const b of (JSON.parse(json.stdout) as Json).jobs[0].backups as Json[]) expect(b).toMatchObject({ verdict: 'unchecked', encrypted: true });

    // A key given later reads the same backups again: the catalog held only their sizes.
    const keyed = await cli(['ls', FILES, 'latest', '--private-key', DEMO_KEY]);
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.stdout).toMatch(/^data\//m);
  }, T);

  it('verify and restore-test give the same hint on stderr; download --output - of ciphertext warns', async () => {
    const verify = await cli(['verify', FILES, '--latest']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stderr).toContain(HINT(FILES));
    const restore = await cli(['restore-test', MYSQL]);
    expect(restore.stderr).toContain(HINT(MYSQL));
    const dl = await cli(['jobs', 'backup', 'download', MYSQL, '--latest', '--output', '-']);
    expect(dl.code, dl.stderr).toBe(0);
    expect(dl.stdoutBytes!.subarray(0, 8).toString('latin1')).toBe('Salted__');
    expect(dl.stderr).toMatch(/is written as stored, encrypted: give --private-key or set jobs\.shop mysql\.private_key/);
    const plain = await cli(['jobs', 'backup', 'download', MYSQL, '--latest', '--output', '-', '--private-key', DEMO_KEY]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('written as stored');
  }, T);
});
