// Issue 29 §5: decrypt on the way. The emulator's encrypted demo backups
// ("shop mysql", "web-01 files") are sealed as the service documents it (the
// user's RSA key unwraps the record's encryption_key; the file is OpenSSL enc
// AES-256), with the demo-only key pair of src/emulator/fixtures/demo-key.
// verify, restore-test and `jobs backup download` read them with
// --private-key, --decrypt-with or the job's settings in the config; a key or
// command that cannot decrypt is exit 15 ("could not decrypt": not tested),
// never 11 or 14; the key and its passphrase never show in output, --debug or
// any process's argv.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { emulatorSession } from '../helpers/emulator.js';

type Json = any;
const T = 120_000;
const DEMO_KEY = path.join(ROOT, 'src/emulator/fixtures/demo-key/demo-private.pem');

let work: string;
const session = emulatorSession({ seed: 'demo', timeoutMs: 100_000 });
const { emu, env, cli } = session;

/** The newest completed backup record of a job, as the service lists it. */
async function newest(job: string): Promise<Json> {
  return (await session.backupsOf(job, 'sort=-created_at')).find((b) => b.status === 'completed');
}

/** The service's scheme with the openssl command line, as docs/verify.md shows it for --decrypt-with. */
const OPENSSL_FILTER = `#!/bin/sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/in"
printf '%s' "$BACKUPCTL_ENCRYPTION_KEY" | base64 -d > "$tmp/sealed"
for pad in oaep pkcs1; do
  openssl pkeyutl -decrypt -inkey "$DEMO_KEY" -pkeyopt rsa_padding_mode:$pad -in "$tmp/sealed" -out "$tmp/pass" 2>/dev/null || continue
  for opts in "-aes-256-cbc -md sha256" "-aes-256-cbc -pbkdf2" "-aes-256-cbc -md md5" "-aes-256-ctr -pbkdf2"; do
    openssl enc -d $opts -pass file:"$tmp/pass" -in "$tmp/in" -out "$tmp/out" 2>/dev/null || continue
    if [ "$(head -c2 "$tmp/out" | od -An -tx1 | tr -d ' \\n')" = "1f8b" ]; then cat "$tmp/out"; exit 0; fi
  done
done
echo "no variant opened the file" >&2
exit 1
`;

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-decrypt-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('--private-key: the built-in recipe', () => {
  it('verify reads every "shop mysql" backup of 30 days through the content checks (all four variants of the scheme the emulator uses)', async () => {
    const before = await cli(['verify', 'shop mysql', '--since', '30d', '--json']);
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout).verdict).toBe('unchecked');
    const r = await cli(['verify', 'shop mysql', '--since', '30d', '--private-key', DEMO_KEY, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.verdict).toBe('passed');
    expect(doc.backups.length).toBeGreaterThanOrEqual(20);
    for (const b of doc.backups) expect(b.files[0]).toMatchObject({ verdict: 'verified', format: 'mysqldump.gz' });
    // The hash is of the bytes as stored (encrypted): the same as without the key.
    const plain = JSON.parse(before.stdout);
    expect(doc.backups[0].files[0].sha256).toBe(plain.backups[0].files[0].sha256);
  }, T);

  it('a file backup (tar.gz and its .sha256 list) is verified too', async () => {
    const r = await cli(['verify', 'web-01 files', '--latest', '--private-key', DEMO_KEY, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).backups[0].files.map((f: Json) => [f.format, f.verdict])).toEqual([
      ['tar.gz', 'verified'],
      ['sha256sums', 'verified'],
    ]);
  }, T);

  it('restore-test restores the newest "shop mysql" backup: 5 tables, 550 rows', async () => {
    const r = await cli(['restore-test', 'shop mysql', '--private-key', DEMO_KEY, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = JSON.parse(r.stdout).backups[0].files[0];
    expect(f).toMatchObject({ kind: 'mysql', verdict: 'restored', rows: 550 });
  }, T);

  it('download --output - writes the plaintext (a mariadb-dump, gzipped); --dir writes it to a file', async () => {
    const r = await cli(['jobs', 'backup', 'download', 'shop mysql', '--latest', '--private-key', DEMO_KEY, '--output', '-']);
    expect(r.code, r.stderr).toBe(0);
    expect(gunzipSync(r.stdoutBytes!).toString('utf8')).toMatch(/^-- MariaDB dump|CREATE TABLE `customers`/m);
    const dir = mkdtempSync(path.join(work, 'dl-'));
    const d = await cli(['jobs', 'backup', 'download', 'shop mysql', '--latest', '--private-key', DEMO_KEY, '--dir', dir]);
    expect(d.code, d.stderr).toBe(0);
    const [name] = readdirSync(dir);
    expect(gunzipSync(readFileSync(path.join(dir, name!))).toString('utf8')).toContain('CREATE TABLE `order_items`');
  }, T);

  it('a wrong key is "could not decrypt", exit 15: never a failed backup (11) or restore (14)', async () => {
    const wrong = path.join(work, 'wrong.pem');
    writeFileSync(wrong, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    for (const cmd of [['verify'], ['restore-test']]) {
      const r = await cli([...cmd, 'shop mysql', '--private-key', wrong]);
      expect(r.code, r.stderr).toBe(15);
      expect(r.stderr).toMatch(/^error: could not decrypt: the private key does not open the encryption_key of backup /m);
      expect(r.stdout).toBe('');
    }
  }, T);

  it('a passphrase-protected key: from --private-key-pass-file or BACKUPCTL_PRIVATE_KEY_PASSPHRASE; never in --debug output nor argv', async () => {
    const passphrase = 'correct-horse-battery-9f3e1a';
    const locked = path.join(work, 'locked.pem');
    writeFileSync(locked, createPrivateKey(readFileSync(DEMO_KEY)).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }));
    const passFile = path.join(work, 'pass.txt');
    writeFileSync(passFile, `${passphrase}\n`, { mode: 0o600 });
    const none = await cli(['verify', 'shop mysql', '--private-key', locked]);
    expect(none.code).toBe(15);
    expect(none.stderr).toMatch(/protected by a passphrase, and none was given/);
    const wrongPass = await cli(['verify', 'shop mysql', '--private-key', locked], { BACKUPCTL_PRIVATE_KEY_PASSPHRASE: 'nope' });
    expect(wrongPass.code).toBe(15);
    expect(wrongPass.stderr).toMatch(/cannot open the private key .*a wrong passphrase\?/);
    const record = await newest('shop mysql');
    const watch = watchArgv([passphrase, record.encryption_key.slice(0, 40)]);
    const byFile = await cli(['verify', 'shop mysql', '--private-key', locked, '--private-key-pass-file', passFile, '--debug']);
    const byEnv = await cli(['verify', 'shop mysql', '--private-key', locked, '--debug', '--json'], { BACKUPCTL_PRIVATE_KEY_PASSPHRASE: passphrase });
    const seen = watch.stop();
    for (const r of [byFile, byEnv]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('[debug]');
      const all = r.stdout + r.stderr;
      expect(all).not.toContain(passphrase);
      expect(all).not.toContain('PRIVATE KEY');
      const pemLine = readFileSync(DEMO_KEY, 'utf8').split('\n')[5]!;
      expect(all).not.toContain(pemLine);
    }
    expect(JSON.parse(byEnv.stdout).verdict).toBe('passed');
    expect(seen.sampled).toBeGreaterThan(5);
    expect(seen.leaked).toEqual([]);
  }, T);
});

/** Samples every process's argv (/proc/<pid>/cmdline): none may hold a secret. */
function watchArgv(secrets: string[]): { stop(): { sampled: number; leaked: string[] } } {
  const leaked = new Set<string>();
  let sampled = 0;
  const timer = setInterval(() => {
    sampled++;
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (secrets.some((s) => argv.includes(s))) leaked.add(argv.replace(/\0/g, ' '));
      } catch {
        /* gone */
      }
    }
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return { sampled, leaked: [...leaked] };
    },
  };
}

describe('--decrypt-with CMD', () => {
  it('a filter with the openssl command line decrypts; it gets BACKUPCTL_ENCRYPTION_KEY and BACKUPCTL_BACKUP_ID, never the token', async () => {
    const filter = path.join(work, 'decrypt.sh');
    writeFileSync(filter, OPENSSL_FILTER);
    chmodSync(filter, 0o700);
    const r = await cli(['verify', 'shop mysql', '--since', '7d', '--decrypt-with', filter, '--json'], { DEMO_KEY });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.verdict).toBe('passed');
    for (const b of doc.backups) expect(b.files[0]).toMatchObject({ verdict: 'verified', format: 'mysqldump.gz' });

    const envFile = path.join(work, 'env.txt');
    const seenEnv = await cli(['verify', 'shop mysql', '--decrypt-with', `env > ${envFile}; exit 3`], { MY_OWN_SETTING: 'kept', PGPASSWORD: 'db-secret' });
    expect(seenEnv.code).toBe(15);
    const lines = readFileSync(envFile, 'utf8').split('\n');
    const record = await newest('shop mysql');
    expect(lines).toContain(`BACKUPCTL_ENCRYPTION_KEY=${record.encryption_key}`);
    expect(lines).toContain(`BACKUPCTL_BACKUP_ID=${record.id}`);
    expect(lines).toContain('MY_OWN_SETTING=kept');
    expect(lines.filter((l) => /^(BACKUPCTL_(?!ENCRYPTION_KEY=|BACKUP_ID=)|PGPASSWORD=)/.test(l))).toEqual([]);
    expect(readFileSync(envFile, 'utf8')).not.toContain(emu.token);
  }, T);

  it('a command that fails, or passes the bytes through still encrypted, is exit 15 "could not decrypt" for verify, restore-test and download', async () => {
    for (const cmd of [['verify'], ['restore-test'], ['jobs', 'backup', 'download', '--latest', '--output', '-']]) {
      const failed = await cli([...cmd, 'shop mysql', '--decrypt-with', 'cat >/dev/null; echo "bad decrypt" >&2; exit 1']);
      expect(failed.code, failed.stderr).toBe(15);
      expect(failed.stderr).toMatch(/^error: could not decrypt: --decrypt-with: the command exited 1 for shop-mysql-\S+ of backup \S+: bad decrypt$/m);
      const through = await cli([...cmd, 'shop mysql', '--decrypt-with', 'cat']);
      expect(through.code, through.stderr).toBe(15);
      expect(through.stderr).toMatch(/still carries an encryption header/);
    }
  }, T);

  it('--decrypt-with and --private-key together: exit 2, nothing sent', async () => {
    emu.clearRequests();
    const r = await cli(['verify', 'shop mysql', '--decrypt-with', 'cat', '--private-key', DEMO_KEY]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--decrypt-with and --private-key are two ways to decrypt: give one/);
    expect(emu.requests.filter((q) => q.path.startsWith('/v1/jobs/'))).toEqual([]);
  }, T);
});

describe('per job in the config', () => {
  it('config set jobs.<job>.private_key: a short cron line verifies and restore-tests the job; a flag still wins', async () => {
    const set = await cli(['config', 'set', 'jobs.shop mysql.private-key', DEMO_KEY]);
    expect(set.code, set.stderr).toBe(0);
    const got = await cli(['config', 'get', 'jobs.shop mysql.private_key']);
    expect(got.stdout).toBe(`${DEMO_KEY}\n`);
    const v = await cli(['verify', 'shop mysql', '--check']);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).not.toMatch(/content not checked/);
    expect(v.stdout).toMatch(/: passed, /);
    const d = await cli(['jobs', 'backup', 'download', 'shop mysql', '--latest', '--output', '-']);
    expect(d.code, d.stderr).toBe(0);
    expect(gunzipSync(d.stdoutBytes!).length).toBeGreaterThan(1000);
    const flag = await cli(['verify', 'shop mysql', '--decrypt-with', 'exit 4']);
    expect(flag.code).toBe(15);
    const unset = await cli(['config', 'unset', 'jobs.shop mysql.private_key']);
    expect(unset.code, unset.stderr).toBe(0);
    const after = await cli(['verify', 'shop mysql', '--json']);
    expect(JSON.parse(after.stdout).verdict).toBe('unchecked');
    const bad = await cli(['config', 'set', 'jobs.shop mysql.passphrase', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown job setting "passphrase": allowed: private_key, private_key_pass_file, decrypt_with/);
  }, T);
});
