// The restore rows of `npm run bench` (issue 24 §7): a ~200 MB pg_dump plain
// file, gzipped, restored into a local PostgreSQL by restore-test's SQL
// engine, against `curl <url> | gunzip | psql` on the same file and the same
// server; the same for a mariadb-dump file against `curl | gunzip | mariadb`;
// and the restoring process's peak RSS (< 200 MB whatever the dump's size).
// The dumps are made by the real pg_dump and mariadb-dump from generated
// tables, served over loopback HTTP as the signed URL would be. Our side is
// the built CLI, `backupctl restore-test <job> --into <the same server>`,
// against a stand-in API (bench/restore-api.mjs) whose one backup is that URL:
// the whole read pipeline (verify's checks on the way) and the SQL engine.
// Alone: `npm run bench -- --only restore` (`--restore-mb 50` for a smaller dump).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serveBackupApi } from './restore-api.mjs';

const isRoot = process.getuid?.() === 0;
export function account(name) {
  if (!isRoot) return null;
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === name) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  throw new Error(`no ${name} account`);
}
export function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}
export function privateDir(who) {
  const dir = mkdtempSync('/tmp/backupctl-bench-restore-');
  chmodSync(dir, 0o700);
  if (who) chownSync(dir, who.uid, who.gid);
  return dir;
}
export function startServer(cmd, args, who, ready) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(who ?? {}) });
  let log = '';
  return new Promise((resolve, reject) => {
    const on = (d) => {
      log += d;
      if (log.length > 1e5) log = log.slice(-5e4);
      if (ready.test(log)) resolve(child);
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.on('exit', (c) => reject(new Error(`${cmd} exited ${c}: ${log}`)));
  });
}
const stop = (child, signal) =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill(signal);
  });
/** Runs a shell pipeline; resolves with its wall time in ms. */
function pipeline(script, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 && !/ERROR/.test(err) ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`${script}: ${err.slice(0, 400)}`))));
  });
}
/** The file over loopback HTTP, as the signed URL serves it. */
function serve(file) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/dump.gz` })));
}

/** One `backupctl restore-test --into` run of the dump behind `url` through the stand-in API; throws unless it passed. */
async function restoreTest({ runOnce, env, cli, work, url, file, recipe, into }) {
  const { server, baseUrl, jobId } = await serveBackupApi({ name: path.basename(file), bytes: statSync(file).size, url }, recipe);
  try {
    const cliEnv = { ...env, BACKUPCTL_BASE_URL: baseUrl, BACKUPCTL_TOKEN: 'bench-token', BACKUPCTL_CONFIG_DIR: path.join(work, 'config'), XDG_STATE_HOME: path.join(work, 'state') };
    return await runOnce(process.execPath, [cli, 'restore-test', jobId, '--into', into, '--json'], cliEnv, { rss: true });
  } finally {
    server.close();
  }
}

export async function restoreRows({ row, runOnce, env, cli, mb = 200, runs = 2 }) {
  const work = mkdtempSync(path.join(tmpdir(), 'backupctl-bench-restore-'));
  const rowsWanted = Math.round((mb * 1e6) / 125);
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  try {
    // PostgreSQL
    {
      const who = account('postgres');
      const dir = privateDir(who);
      const bin = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin`)[0];
      sh(path.join(bin, 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '-N'], who ?? {});
      const server = await startServer(path.join(bin, 'postgres'), ['-D', path.join(dir, 'data'), '-k', dir, '-c', 'listen_addresses=', '-F', '-c', 'max_wal_size=2GB'], who, /ready to accept connections/);
      const pgEnv = { ...env, PGHOST: dir, PGUSER: 'postgres' };
      const psql = (db, sql) => sh('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', db, '-c', sql], { env: pgEnv });
      try {
        process.stderr.write(`restore: making a ~${mb} MB pg_dump plain file (${rowsWanted.toLocaleString('en')} rows)...\n`);
        psql('postgres', 'CREATE DATABASE src');
        psql('src', `CREATE TABLE events (id bigint PRIMARY KEY, kind text, payload text, at timestamptz); INSERT INTO events SELECT g, 'kind-' || (g % 17), md5(g::text) || ' ' || repeat('x', 40), timestamptz '2026-01-01' + g * interval '1 second' FROM generate_series(1, ${rowsWanted}) g;`);
        const file = path.join(work, 'pg.sql.gz');
        await pipeline(`pg_dump -Fp src | gzip -1 > '${file}'`, pgEnv);
        psql('postgres', 'DROP DATABASE src');
        const { server: web, url } = await serve(file);
        const times = { psql: [], ours: [] };
        let peak = 0;
        try {
          // Alternated, each after a CHECKPOINT: neither pays for the other's dirty pages.
          // Like for like: restore-test makes its scratch database and drops it afterwards, so the
          // plain pipeline's run does too (a database to restore into, then away with it), timed
          // as one script: `psql -c CREATE DATABASE && curl | gunzip | psql && psql -c DROP DATABASE`.
          const baseline = async (i) => {
            psql('postgres', 'CHECKPOINT');
            const admin = `psql -X -q -v ON_ERROR_STOP=1 -d postgres -c`;
            times.psql.push(await pipeline(`${admin} 'CREATE DATABASE base${i}' && curl -s '${url}' | gunzip | psql -X -q -v ON_ERROR_STOP=1 -d base${i} && ${admin} 'DROP DATABASE base${i}'`, pgEnv));
          };
          const ours = async () => {
            psql('postgres', 'CHECKPOINT');
            const r = await restoreTest({ runOnce, env, cli, work, url, file, recipe: 'postgresql', into: `postgres://postgres@/postgres?host=${dir}` });
            times.ours.push(r.ms);
            peak = Math.max(peak, r.peakRssMb);
          };
          for (let i = 0; i < runs; i++) {
            if (i % 2) {
              await ours();
              await baseline(i);
            } else {
              await baseline(i);
              await ours();
            }
          }
        } finally {
          web.close();
        }
        const ratio = median(times.ours) / median(times.psql);
        row(`restore of a ${mb} MB pg_dump plain file (gzipped, loopback URL) into a local PostgreSQL by \`backupctl restore-test --into\` vs \`curl | gunzip | psql\`, each making and dropping its database (medians of ${runs})`, `${ratio.toFixed(2)}x (${(median(times.ours) / 1000).toFixed(1)} s vs ${(median(times.psql) / 1000).toFixed(1)} s)`, '<= 1.2x', ratio <= 1.2);
        row('  the same: peak RSS of backupctl', `${peak.toFixed(0)} MB`, '< 200 MB', peak < 200);
      } finally {
        await stop(server, 'SIGINT');
        rmSync(dir, { recursive: true, force: true });
      }
    }
    // MariaDB
    {
      const who = account('mysql');
      const dir = privateDir(who);
      const sbin = ['/usr/sbin/', '/usr/bin/'];
      const exe = (n) => sbin.map((d) => d + n).find(existsSync) ?? n;
      sh(exe('mariadb-install-db'), ['--no-defaults', `--datadir=${path.join(dir, 'data')}`, '--auth-root-authentication-method=normal', '--skip-test-db'], who ?? {});
      const sock = path.join(dir, 'sock');
      const server = await startServer(exe('mariadbd'), ['--no-defaults', `--datadir=${path.join(dir, 'data')}`, `--socket=${sock}`, '--skip-networking', '--skip-log-bin', '--innodb-flush-log-at-trx-commit=0', '--innodb-buffer-pool-size=256M', '--max-allowed-packet=1G'], who, /ready for connections/);
      const my = (sql) => sh('mariadb', ['--no-defaults', `--socket=${sock}`, '--user=root'], { input: sql });
      try {
        process.stderr.write(`restore: making a ~${mb} MB mariadb-dump file...\n`);
        my(`CREATE DATABASE src; USE src; CREATE TABLE events (id bigint PRIMARY KEY, kind varchar(20), payload text, at datetime); INSERT INTO events SELECT seq, CONCAT('kind-', seq % 17), CONCAT(MD5(seq), ' ', REPEAT('x', 40)), TIMESTAMP '2026-01-01 00:00:00' + INTERVAL seq SECOND FROM seq_1_to_${rowsWanted};`);
        const file = path.join(work, 'my.sql.gz');
        await pipeline(`mariadb-dump --no-defaults --socket='${sock}' --user=root src | gzip -1 > '${file}'`, env);
        my('DROP DATABASE src');
        const { server: web, url } = await serve(file);
        const times = { client: [], ours: [] };
        let peak = 0;
        try {
          // Like for like, as for PostgreSQL: the database is made and dropped inside the timed script.
          const baseline = async (i) => {
            const admin = `mariadb --no-defaults --socket='${sock}' --user=root -e`;
            times.client.push(await pipeline(`${admin} 'CREATE DATABASE base${i}' && curl -s '${url}' | gunzip | mariadb --no-defaults --socket='${sock}' --user=root base${i} && ${admin} 'DROP DATABASE base${i}'`, env));
          };
          const ours = async () => {
            const r = await restoreTest({ runOnce, env, cli, work, url, file, recipe: 'mysql', into: `mysql://root@localhost/?socket=${sock}` });
            times.ours.push(r.ms);
            peak = Math.max(peak, r.peakRssMb);
          };
          for (let i = 0; i < runs; i++) {
            if (i % 2) {
              await ours();
              await baseline(i);
            } else {
              await baseline(i);
              await ours();
            }
          }
        } finally {
          web.close();
        }
        const ratio = median(times.ours) / median(times.client);
        row(`the same for a ${mb} MB mariadb-dump file into a local MariaDB vs \`curl | gunzip | mariadb\`, the same`, `${ratio.toFixed(2)}x (${(median(times.ours) / 1000).toFixed(1)} s vs ${(median(times.client) / 1000).toFixed(1)} s)`, '<= 1.2x', ratio <= 1.2);
        row('  the same: peak RSS of backupctl', `${peak.toFixed(0)} MB`, '< 200 MB', peak < 200);
      } finally {
        await stop(server, 'SIGTERM');
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    if (existsSync(path.join(work, 'trace'))) process.stderr.write(readFileSync(path.join(work, 'trace'), 'utf8'));
    rmSync(work, { recursive: true, force: true });
  }
}
