// `npm pack` of a source folder, then `npm install -g` of the tarball into a
// temporary prefix, offline (the package has no run-time dependencies): how
// a user installs a release. The install test (test/e2e/install.test.ts) and
// `npm run bench` (the installed size) both use it.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** `env` without npm's own variables (`npm test` and `npm run` set npm_config_*, which would steer the inner npm). */
export function withoutNpmVars(env) {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !/^npm_/i.test(k)));
}

/**
 * Packs `sources` into `<work>/packed` (its `prepare` builds dist/, unless
 * `ignoreScripts`) and installs the tarball into `<work>/prefix`.
 * Returns npm pack's output, the prefix and the installed package's folder.
 */
export async function packAndInstall({ sources, work, env = process.env, ignoreScripts = false }) {
  const clean = withoutNpmVars(env);
  const packed = path.join(work, 'packed');
  const prefix = path.join(work, 'prefix');
  mkdirSync(packed, { recursive: true });
  const pack = await run('npm', ['pack', ...(ignoreScripts ? ['--ignore-scripts'] : []), '--pack-destination', packed, '--no-fund', '--no-audit'], {
    cwd: sources,
    env: clean,
    timeout: 300_000,
  });
  const tarball = readdirSync(packed).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball: ${pack.stderr.slice(-2000)}`);
  await run('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-fund', '--no-audit', path.join(packed, tarball)], { cwd: work, env: clean, timeout: 120_000 });
  return { packOutput: pack.stdout + pack.stderr, prefix, installed: path.join(prefix, 'lib', 'node_modules', 'backupctl') };
}

/** Bytes of every file under `dir` (what an install puts on disk, block rounding aside). */
export function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(p);
    else if (entry.isFile()) total += statSync(p).size;
  }
  return total;
}
