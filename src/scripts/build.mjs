// Builds dist/: the whole CLI as one CommonJS bundle (dist/main.cjs) with
// the V8 code cache for it (dist/main.cache, see src/boot.cjs), the loader
// (dist/boot.cjs), dist/startup/ (the command tree start-up reads: an index
// and a file per group; completion and schema read the whole tree from it too)
// and dist/manifest.json (the same tree in one file, for the tests; the
// package and the single executable leave it out).
// Handlers, schemas and libraries stay lazy inside the bundle: esbuild turns
// each `await import()` into a module initialised on first use.
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { lazyBuiltins } from './lazy-builtins.mjs';
import { coreTable, moduleTable, otherBundle, splitGraph, usedNames } from './split-bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
const finalDist = path.join(root, 'dist');
// Build beside dist/ and swap it in at the end, so a test run (or a second
// build) never sees a half-written dist/.
const dist = path.join(root, `.tmp/dist-${process.pid}`);
const tmp = path.join(root, '.tmp', `manifest-${process.pid}`);

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  define: { __VERSION__: JSON.stringify(pkg.version) },
  // BACKUPCTL_BUILD_READABLE=1: names and lines kept, for `node --cpu-prof` (docs/startup.md); never shipped.
  minifyWhitespace: process.env.BACKUPCTL_BUILD_READABLE !== '1',
  minifySyntax: true,
  // Short local names: the bundle 1.84 -> 1.38 MB and its code cache smaller (an install
  // must stay within 3 MB, issue 14), and ~4 ms less CPU before a list's first record.
  // Not keepNames: its __name() call per function cost those 4 ms back. What a name
  // changes is cosmetic: no code compares a class's .name (an error's `name`, set from
  // new.target.name, and a --debug stack trace show short names).
  minifyIdentifiers: process.env.BACKUPCTL_BUILD_READABLE !== '1',
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
};

// pg (the PostgreSQL state, src/state/pg.ts) names pg-native for its optional native client, which
// backupctl never uses: a stub in its place, so the bundle needs no package outside it.
const noPgNative = {
  name: 'no-pg-native',
  setup(b) {
    b.onResolve({ filter: /^pg-native$/ }, () => ({ path: 'pg-native', namespace: 'no-pg-native' }));
    b.onLoad({ filter: /.*/, namespace: 'no-pg-native' }, () => ({ contents: 'throw new Error("pg-native is not part of backupctl")', loader: 'js' }));
  },
};

await rm(tmp, { recursive: true, force: true });
await mkdir(tmp, { recursive: true });
await mkdir(dist, { recursive: true });

// The CLI in two bundles (src/scripts/split-bundle.mjs): dist/main.cjs, what start-up and the common
// commands run, and dist/cold.cjs, the rest, loaded when a command first imports one of its modules.
const bundleOptions = {
  ...common,
  format: 'cjs',
  // The places that find files next to the bundle (startup/, jq.wasm.gz) use import.meta.url.
  define: { ...common.define, 'import.meta.url': '__backupctlMetaUrl' },
  // PGlite (27 MB, restore-test's embedded engine) is an optional package the user adds:
  // never bundled, loaded from node_modules on that path only (src/restore/sql/pglite.ts).
  // mysql2 (restore-test's MariaDB/MySQL wire protocol, 1 MB with its encodings) likewise: a clone has it, an
  // installed backupctl finds it when the user adds it beside (npm install -g mysql2); without it, exit 15 says so.
  external: ['@electric-sql/pglite'],
  metafile: true,
};
const metaUrl = 'const __backupctlMetaUrl = require("node:url").pathToFileURL(__filename).href;';
// First the whole CLI in one bundle, not written: its module graph says where each module goes.
const whole = await build({ ...bundleOptions, entryPoints: { main: 'src/main.ts' }, outfile: path.join(dist, 'main.cjs'), plugins: [lazyBuiltins, noPgNative], write: false });
await writeFile(path.join(root, '.tmp', 'meta.json'), JSON.stringify(whole.metafile));
const split = splitGraph(whole.metafile);
const names = await usedNames(root, whole.metafile, split.cold, split.coreEntries);
const formats = Object.fromEntries(Object.entries(whole.metafile.inputs).map(([file, input]) => [file, input.format]));
await build({
  ...bundleOptions,
  stdin: {
    contents: `export * from ${JSON.stringify(path.join(root, 'src', 'main.ts'))};\nexport const coreModules = (p) => require('split-bundle:core-table').default[p]();\n`,
    resolveDir: root,
    sourcefile: 'main-entry.js',
    loader: 'js',
  },
  outfile: path.join(dist, 'main.cjs'),
  banner: { js: `${metaUrl}\nconst __backupctlCold = (p) => module.loadCold()[p]();` },
  plugins: [
    otherBundle({ root, other: split.cold, allowed: new Set(split.coldEntries), ask: '__backupctlCold', side: 'main', table: coreTable(root, whole.metafile, split.coreEntries, names), formats }),
    lazyBuiltins,
    noPgNative,
  ],
}).then((r) => writeFile(path.join(root, '.tmp', 'meta-main.json'), JSON.stringify(r.metafile)));
await build({
  ...bundleOptions,
  stdin: { contents: `module.exports = ${moduleTable(root, split.coldEntries)};\n`, resolveDir: root, sourcefile: 'cold-entry.js', loader: 'js' },
  outfile: path.join(dist, 'cold.cjs'),
  banner: { js: `${metaUrl}\nconst __backupctlCore = (p) => module.core(p);` },
  plugins: [otherBundle({ root, other: split.hot, allowed: new Set(split.coreEntries), ask: '__backupctlCore', side: 'cold', formats }), lazyBuiltins, noPgNative],
});
// The build id on the first line ties each bundle's code cache to this very bundle (src/boot.cjs);
// cold.cjs's also names main.cjs's, the only main.cjs whose modules it may be linked with.
const buildIds = {};
for (const name of ['main', 'cold']) {
  const bundle = await readFile(path.join(dist, `${name}.cjs`), 'utf8');
  buildIds[name] = createHash('sha256').update(bundle).digest('hex').slice(0, 16);
  // Written as the function node's module wrapper would make of it (Module.wrap), which boot.cjs compiles as it is:
  // no 1 MB string put together on every start.
  await writeFile(
    path.join(dist, `${name}.cjs`),
    `// backupctl build ${buildIds[name]}${name === 'cold' ? ` main ${buildIds.main}` : ''}\n(function (exports, require, module, __filename, __dirname) { ${bundle}\n});`,
  );
}
await copyFile(path.join(root, 'src', 'boot.cjs'), path.join(dist, 'boot.cjs'));
// restore-test's SQLite engine: sql.js's JavaScript is in the bundle, its WebAssembly is read from here
// (src/restore/sqlite.ts), gzipped: 0.69 MB -> about a third, read only when a SQLite backup is restored.
await writeFile(path.join(dist, 'sqlite.wasm.gz'), gzipSync(await readFile(path.join(root, 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm')), { level: 9 }));
// The emulator's real dumps (restore-test, issue 24 §5: pg_dump and mariadb-dump output, 80 KB), read by src/emulator/real-dumps.ts.
// Not in the package (package.json files): an installed emulator serves made-up dumps and has no --archive-faults jobs.
await cp(path.join(root, 'src', 'emulator', 'fixtures', 'restore'), path.join(dist, 'restore-fixtures'), { recursive: true });
// --jq's engine: jq-wasm's JavaScript is in the bundle, its WebAssembly is read from here (src/output/jq.ts),
// gzipped: 0.93 MB -> 0.34 MB of the 3 MB an install may take (issue 14), ~3 ms to inflate on a --jq run.
await writeFile(
  path.join(dist, 'jq.wasm.gz'),
  gzipSync(await readFile(path.join(root, 'node_modules', 'jq-wasm', 'dist', 'build', 'jq.wasm')), { level: 9 }),
);

// The build's own use of the sources (manifest, docs, completions): an ESM module in .tmp/.
await build({
  ...common,
  entryPoints: { 'manifest-build': 'src/build/manifest-build.ts' },
  outdir: tmp,
  format: 'esm',
  // CommonJS dependencies (commander, undici, cli-table3) call require() inside an ESM bundle.
  banner: { js: 'import { createRequire as __backupctlRequire } from "node:module"; const require = __backupctlRequire(import.meta.url);' },
  minifyWhitespace: false,
});
const generated = await import(pathToFileURL(path.join(tmp, 'manifest-build.js')).href);
const manifest = await generated.collectManifest(pkg.version);
await writeFile(path.join(dist, 'manifest.json'), JSON.stringify(manifest));
// The manual page: dist/backupctl.1 for a clone (`man -l`), and gzipped for package.json `man`
// (npm links it as man1/backupctl.1.gz): 71 kB -> 16 kB of the 3 MB an install may take (issue 14).
const manPage = generated.manPage(manifest, pkg.description);
await writeFile(path.join(dist, 'backupctl.1'), manPage);
await writeFile(path.join(dist, 'backupctl.1.gz'), gzipSync(manPage, { level: 9 }));
// What start-up reads: an index, and one file per command group (src/main.ts).
await mkdir(path.join(dist, 'startup'), { recursive: true });
for (const [name, content] of Object.entries(generated.startupFiles(manifest))) {
  await writeFile(path.join(dist, 'startup', name), JSON.stringify(content));
}
// The JSON Schema of each command's --json output, which `backupctl schema` reads (src/build/schemas.ts).
// Gzipped: 103 kB -> a tenth of it, of the 3 MB an install may take (issue 14).
await writeFile(path.join(dist, 'startup', 'schemas.json.gz'), gzipSync(JSON.stringify(await generated.outputSchemas(manifest)), { level: 9 }));
// `--docs`: rewrite the generated documents checked in under docs/ (a test checks they are current).
if (process.argv.includes('--docs')) {
  await mkdir(path.join(root, 'docs'), { recursive: true });
  await writeFile(path.join(root, 'docs', 'commands.md'), generated.commandsMarkdown(manifest));
  console.error('wrote docs/commands.md');
  await writeFile(path.join(root, 'docs', 'openapi.json'), `${JSON.stringify(await generated.openapiDocument(manifest), null, 2)}\n`);
  console.error('wrote docs/openapi.json');
  await writeFile(path.join(root, 'docs', 'backups.schema.json'), `${JSON.stringify(generated.backupsFileSchema(), null, 2)}\n`);
  console.error('wrote docs/backups.schema.json');
  for (const [file, text] of Object.entries(generated.completionFiles(manifest))) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
    console.error(`wrote ${file}`);
  }
}
await writeCodeCache(dist);

const old = path.join(root, `.tmp/dist-old-${process.pid}`);
await rename(finalDist, old).catch(() => {});
await rename(dist, finalDist);
await rm(old, { recursive: true, force: true });
await rm(tmp, { recursive: true, force: true });
console.error(`built dist/ with ${manifest.commands.length} commands`);

/** dist/cache/<word>.cache: the cache of a process that ran `argvs` alone (src/scripts/train-cache.cjs). */
function trainWordCache(dir, word, argvs, env) {
  return new Promise((resolve, reject) => {
    const args = [path.join(root, 'src', 'scripts', 'train-cache.cjs'), dir, path.join(dir, 'cache', `${word}.cache`), ...argvs.map((a) => JSON.stringify(a))];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`training the ${word} cache failed (${code}): ${stderr}`))));
  });
}

/**
 * dist/main.cache: V8's compiled code for the functions a few common commands
 * run (start-up, --help, lists in every format, a record), made by running
 * them in this process against an emulator in another one (so the emulator's
 * code stays out of the cache). Loaded exactly as bin/ loads it, with the
 * same V8 flags, or V8 would refuse the cache.
 */
async function writeCodeCache(dir) {
  const require = createRequire(import.meta.url);
  const boot = require(path.join(dir, 'boot.cjs'));
  const emulator = spawn(
    process.execPath,
    ['-e', 'const m = require(process.argv[1]).load(undefined, { cache: false }).exports; m.run(process.argv.slice(2), m.processIO(), process.env)', path.join(dir, 'boot.cjs'), 'emulator', '--port', '0', '--seed', 'demo', '--big-job', '300'],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, NO_COLOR: '1' } },
  );
  const configDir = await mkdtemp(path.join(tmpdir(), 'backupctl-build-'));
  try {
    const found = await new Promise((resolve, reject) => {
      const vars = {};
      createInterface({ input: emulator.stdout }).on('line', (line) => {
        const m = /^(BACKUPCTL_BASE_URL|BACKUPCTL_TOKEN)=(.*)$/.exec(line);
        if (m) vars[m[1]] = m[2];
        if (vars.BACKUPCTL_BASE_URL && vars.BACKUPCTL_TOKEN) resolve(vars);
      });
      emulator.on('exit', (code) => reject(new Error(`the training emulator exited (${code})`)));
    });
    // A config file, as most users have one: reading and checking it is part of every command.
    await writeFile(path.join(configDir, 'config.json'), JSON.stringify({ current_profile: 'default', profiles: { default: { base_url: found.BACKUPCTL_BASE_URL } } }));
    const loaded = boot.load(dir, { cache: false });
    const { exports: cli, script, id } = loaded;
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...found, BACKUPCTL_CONFIG_DIR: configDir, NO_COLOR: '1' };
    const run = async (argv) => {
      let out = '';
      const sink = (keep) => new Writable({ write(chunk, _enc, cb) { if (keep) out += chunk; cb(); } });
      const io = { stdout: sink(true), stderr: sink(false), stdin: process.stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 100 };
      const code = await cli.run(argv, io, env);
      if (code !== 0 && !argv.includes('--help')) throw new Error(`training run \`backupctl ${argv.join(' ')}\` exited ${code}`);
      return out;
    };
    const bulk = (await run(['jobs', 'list', '--all', '-o', 'ndjson'])).split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((j) => j.name === 'bulk');
    if (!bulk) throw new Error('training: no bulk job in the emulator');
    // Each word's own cache (dist/cache/<word>.cache, read instead of main.cache when the command line
    // starts with it: src/boot.cjs), from its commands below alone, each made in a process of its own.
    const byWord = {
      top: [['--help']],
      servers: [['servers', 'list', '--json'], ['servers', 'list'], ['servers', 'list', '-o', 'tsv']],
      jobs: [
        ['jobs', '--help'],
        ['jobs', 'backup', 'list', bulk.id, '--all', '--page-size', '50', '-o', 'ndjson'],
        ['jobs', 'backup', 'list', bulk.id, '--all', '--page-size', '50', '--json'],
        ['jobs', 'get', bulk.id],
      ],
    };
    await Promise.all(Object.entries(byWord).map(([word, argvs]) => trainWordCache(dir, word, argvs, env)));
    for (const argv of Object.values(byWord).flat()) await run(argv);
    await writeFile(path.join(dir, 'main.cache'), Buffer.concat([Buffer.from(`${id}\n`, 'latin1'), script.createCachedData()]));
    // The cold bundle's cache: what these commands ran of it (status and the help topics), and its top level.
    for (const argv of [['status'], ['help', 'exit-codes']]) await run(argv);
    const cold = loaded.cold();
    await writeFile(path.join(dir, 'cold.cache'), Buffer.concat([Buffer.from(`${cold.id}\n`, 'latin1'), cold.script.createCachedData()]));
  } finally {
    emulator.kill('SIGTERM');
    await rm(configDir, { recursive: true, force: true });
  }
}
