// `npm run package`: the single executable dist/sea/backupctl-<platform>-<arch>,
// a copy of the node that runs this script with the CLI injected as a Node
// single executable application (SEA) blob. It runs where no node is
// installed, but only on the platform and architecture it was built on.
//
// The blob's main script is src/sea.cjs bundled with src/boot.cjs; the bundle
// dist/main.cjs, its code cache dist/main.cache, the files start-up reads
// (dist/startup/, which also give completion and schema the whole command
// tree), jq's dist/jq.wasm.gz and SQLite's dist/sqlite.wasm.gz are assets of the blob under their names in
// dist/ (src/util/built-files.ts reads them there). `useCodeCache`
// puts V8's cache of the small main script in the blob too; the bundle's
// cache is the build's own (src/boot.cjs), which holds the functions a few
// real commands ran, not only those compiled eagerly.
//
// Needs dist/ built by the same node (npm run package builds it first).
// `--out <dir>` writes the executable there instead of dist/sea/ (tests).
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');
const args = process.argv.slice(2);
const outDir = args.includes('--out') ? path.resolve(args[args.indexOf('--out') + 1]) : path.join(dist, 'sea');
const name = `backupctl-${process.platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`;
const work = path.join(root, '.tmp', `sea-${process.pid}`);
// The fuse postject flips so node looks for the blob (the value Node's SEA documentation gives).
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

await rm(work, { recursive: true, force: true });
await mkdir(work, { recursive: true });
try {
  const entry = path.join(work, 'main.cjs');
  await build({
    entryPoints: [path.join(root, 'src', 'sea.cjs')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minifyWhitespace: true,
    logLevel: 'warning',
  });
  const assets = { 'jq.wasm.gz': path.join(dist, 'jq.wasm.gz'), 'sqlite.wasm.gz': path.join(dist, 'sqlite.wasm.gz') };
  // The two bundles (src/scripts/split-bundle.mjs) and their code caches, loaded as src/boot.cjs loads them from dist/.
  for (const file of ['main.cjs', 'main.cache', 'cold.cjs', 'cold.cache']) assets[file] = path.join(dist, file);
  for (const file of await readdir(path.join(dist, 'startup'))) assets[`startup/${file}`] = path.join(dist, 'startup', file);
  // PGlite, restore-test's embedded engine (an optional package beside an npm install): in the blob, so the
  // executable restores PostgreSQL dumps with no node and no PostgreSQL on the server. Its JavaScript bundled
  // into one file, and its three files, which the child hands to PGlite (src/restore/sql/pglite.ts).
  const pglite = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  await build({ entryPoints: [path.join(pglite, 'index.cjs')], outfile: path.join(work, 'pglite.cjs'), bundle: true, platform: 'node', target: 'node20', format: 'cjs', external: ['ws'], logLevel: 'warning' });
  Object.assign(assets, {
    'pglite/index.cjs': path.join(work, 'pglite.cjs'),
    'pglite/pglite.wasm': path.join(pglite, 'pglite.wasm'),
    'pglite/initdb.wasm': path.join(pglite, 'initdb.wasm'),
    'pglite/pglite.data': path.join(pglite, 'pglite.data'),
  });
  // mysql2, restore-test's MySQL/MariaDB driver (optional beside an npm install; issue 42.9): bundled into one
  // file, which the executable compiles when a MySQL dump is restored (src/restore/sql/mysql.ts).
  const mysql2 = createRequire(import.meta.url).resolve('mysql2/promise');
  await build({ entryPoints: [mysql2], outfile: path.join(work, 'mysql2.cjs'), bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' });
  assets['mysql2/promise.cjs'] = path.join(work, 'mysql2.cjs');
  for (const file of Object.values(assets)) await readFile(file).catch(() => Promise.reject(new Error(`${path.relative(root, file)} is missing: run npm run build first`)));
  const blob = path.join(work, 'sea-prep.blob');
  const config = path.join(work, 'sea-config.json');
  await writeFile(config, JSON.stringify({ main: entry, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets }, null, 2));
  await promisify(execFile)(process.execPath, ['--experimental-sea-config', config], { cwd: work });

  await mkdir(outDir, { recursive: true });
  const exe = path.join(outDir, name);
  await rm(exe, { force: true });
  await copyFile(process.execPath, exe);
  await chmod(exe, 0o755);
  const { inject } = createRequire(import.meta.url)('postject');
  // postject's LIEF (compiled to WebAssembly, printing through console.warn) warns 9 times on Linux
  // "Can't find string offset for section name '.note.100'": when it rewrites the ELF it has no name
  // string for the note sections it lays out itself, so their section headers get an empty name
  // (vendor/lief/src/ELF/Builder.tcc). Harmless: the loader reads program headers, not section names,
  // and node finds the blob by walking the PT_NOTE segments (postject-api.h, dl_iterate_phdr);
  // test/e2e/sea.test.ts runs the executable. That one warning is dropped; any other is shown.
  const harmless = /^warning: Can't find string offset for section name '\.note(\.\d+)?'$/;
  const warn = console.warn;
  console.warn = (...parts) => {
    if (parts.length === 1 && harmless.test(String(parts[0]).trim())) return;
    warn(...parts);
  };
  try {
    await inject(exe, 'NODE_SEA_BLOB', await readFile(blob), { sentinelFuse: SEA_FUSE, machoSegmentName: process.platform === 'darwin' ? 'NODE_SEA' : undefined });
  } finally {
    console.warn = warn;
  }
  console.error(`built ${path.relative(process.cwd(), exe) || exe} (${process.platform}-${process.arch} only)`);
} finally {
  await rm(work, { recursive: true, force: true });
}
