// The packaging matrix (issue 42): the `npm pack` tarball installed into a temporary prefix (with PGlite
// added as the README's Install section says), and the single executable (`npm run package`), each run
// verify and restore-test of the demo's "api postgres" against the emulator: with PGlite (--engine
// embedded) and with an ephemeral local PostgreSQL (--engine local). Each is built once for this file.
// Before the fix the single executable started its PGlite child as `<itself> -e ...`, which ran the CLI
// (exit 2), and restore-test said the backup failed (exit 14).
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, runProgram } from '../helpers/cli.js';
import { emulatorEnv, withEmulator } from '../helpers/emulator.js';
import { packAndInstall, withoutNpmVars } from '../../src/scripts/pack-install.mjs';

const run = promisify(execFile);
const JOB = 'api postgres';

let work: string;
let sea: string;
let prefix: string;
let emptyBin: string;
/** The MariaDB programs restore-test starts, and nothing else (no node). */
let mariadbBin: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-packaging-'));
  emptyBin = path.join(work, 'bin');
  mkdirSync(emptyBin);
  // Readable by the unprivileged user the local server runs as (root starts it as another user).
  chmodSync(work, 0o755);
  mariadbBin = path.join(work, 'mariadb-bin');
  mkdirSync(mariadbBin, { mode: 0o755 });
  for (const [name, where] of [['mariadbd', '/usr/sbin/mariadbd'], ['mariadb-install-db', '/usr/bin/mariadb-install-db']]) symlinkSync(where!, path.join(mariadbBin, name!));
  mkdirSync(path.join(work, 'home'));
  // The single executable, outside the sources (no node_modules above it to find PGlite in).
  const seaBuild = run(process.execPath, [path.join(ROOT, 'src', 'scripts', 'sea.mjs'), '--out', path.join(work, 'sea')], { cwd: ROOT, timeout: 300_000 });
  // The tarball of a fresh clone's files, installed; then PGlite as the README says (npm install -g
  // @electric-sql/pglite), from the local copy's own tarball: the tests have no network.
  const sources = path.join(work, 'clone');
  for (const part of ['package.json', 'package-lock.json', 'LICENSE', 'README.md', 'docs', 'tsconfig.json', 'bin', 'src', 'completions']) {
    cpSync(path.join(ROOT, part), path.join(sources, part), { recursive: true });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(sources, 'node_modules'), 'dir');
  ({ prefix } = await packAndInstall({ sources, work: path.join(work, 'npm'), env: cleanEnv() }));
  const env = withoutNpmVars(cleanEnv());
  const tarballs = path.join(work, 'tarballs');
  mkdirSync(tarballs);
  await run('npm', ['pack', '--pack-destination', tarballs, path.join(ROOT, 'node_modules', '@electric-sql', 'pglite')], { cwd: work, env, timeout: 120_000 });
  const pglite = readdirSync(tarballs).find((f) => f.endsWith('.tgz'))!;
  await run('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-fund', '--no-audit', path.join(tarballs, pglite)], { cwd: work, env, timeout: 120_000 });
  await seaBuild;
  sea = path.join(work, 'sea', `backupctl-${process.platform}-${process.arch}`);
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each([
  { name: 'the npm package installed into a prefix, PGlite added beside it', program: () => 'backupctl', bin: () => [path.join(prefix, 'bin'), path.dirname(process.execPath)] },
  { name: 'the single executable, with no node on PATH', program: () => sea, bin: () => [emptyBin], mysql: true },
])('$name', ({ program, bin, mysql }) => {
  // archiveFaults: the demo plus restore-test's real dumps ("mariadb dump").
  const emu = withEmulator({ archiveFaults: true });
  const cli = (args: string[]) =>
    runProgram(program(), args, {
      cwd: path.join(work, 'home'),
      timeoutMs: 300_000,
      env: withoutNpmVars(cleanEnv({ ...emulatorEnv(emu), PATH: bin().join(path.delimiter), HOME: path.join(work, 'home'), BACKUPCTL_CONFIG_DIR: path.join(work, 'config') })),
    });

  it('verify passes', async () => {
    const r = await cli(['verify', JOB]);
    expect(r.code, r.stderr).toBe(0);
  });

  it.each(['embedded', 'local'])('restore-test --engine %s passes', async (engine) => {
    const r = await cli(['restore-test', JOB, '--engine', engine, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { verdict: string; backups: { files: { verdict: string; engine: { product: string; mode: string } | null }[] }[] };
    expect(doc.verdict).toBe('passed');
    const file = doc.backups[0]!.files[0]!;
    expect(file.verdict).toBe('restored');
    expect(file.engine).toMatchObject(engine === 'embedded' ? { product: 'PGlite', mode: 'embedded' } : { product: 'PostgreSQL', mode: 'local' });
  }, 300_000);

  // Issue 42.9: the single executable carries mysql2 in its blob, as it carries PGlite (it said "the mysql2 driver is not installed").
  // mariadb-install-db is a shell script that needs sed, awk, mkdir...: the system's PATH here (the executable,
  // outside any node_modules, can take mysql2 only from its blob whatever node is on PATH).
  if (mysql) it('restore-test of a MariaDB dump with a local MariaDB passes (mysql2 from the blob)', async () => {
    const r = await runProgram(program(), ['restore-test', 'mariadb dump', '--engine', 'local', '--json'], {
      cwd: path.join(work, 'home'),
      timeoutMs: 300_000,
      env: withoutNpmVars(cleanEnv({ ...emulatorEnv(emu), PATH: [mariadbBin, '/usr/bin', '/bin'].join(path.delimiter), HOME: path.join(work, 'home'), BACKUPCTL_CONFIG_DIR: path.join(work, 'config-my') })),
    });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { verdict: string; backups: { files: { verdict: string; engine: { product: string; mode: string } | null }[] }[] };
    expect(doc.verdict).toBe('passed');
    expect(doc.backups[0]!.files[0]!.engine).toMatchObject({ product: 'MariaDB', mode: 'local' });
  }, 300_000);
});
