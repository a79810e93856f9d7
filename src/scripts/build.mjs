// Builds dist/: one esbuild bundle of src/main.ts split into lazily loaded
// chunks, and dist/manifest.json, the command tree read at start-up.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
const dist = path.join(root, 'dist');
const tmp = path.join(root, '.tmp', 'manifest');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  splitting: true,
  // CommonJS dependencies (commander, undici, cli-table3) call require() inside an ESM bundle.
  banner: { js: 'import { createRequire as __backupctlRequire } from "node:module"; const require = __backupctlRequire(import.meta.url);' },
  define: { __VERSION__: JSON.stringify(pkg.version) },
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
};

await rm(dist, { recursive: true, force: true });
await rm(tmp, { recursive: true, force: true });
await mkdir(tmp, { recursive: true });
await mkdir(dist, { recursive: true });

await build({
  ...common,
  entryPoints: { main: 'src/main.ts' },
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
}).then((r) => writeFile(path.join(root, '.tmp', 'meta.json'), JSON.stringify(r.metafile)));

await build({ ...common, entryPoints: { 'manifest-build': 'src/cli/manifest-build.ts' }, outdir: tmp, minifyWhitespace: false });
const { collectManifest } = await import(pathToFileURL(path.join(tmp, 'manifest-build.js')).href);
const manifest = await collectManifest(pkg.version);
await writeFile(path.join(dist, 'manifest.json'), JSON.stringify(manifest));
console.error(`built dist/ with ${manifest.commands.length} commands`);
