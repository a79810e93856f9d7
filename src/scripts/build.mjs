// Builds dist/: one esbuild bundle of src/main.ts split into lazily loaded
// chunks, and dist/manifest.json, the command tree read at start-up.
import { build } from 'esbuild';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

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
const generated = await import(pathToFileURL(path.join(tmp, 'manifest-build.js')).href);
const manifest = await generated.collectManifest(pkg.version);
await writeFile(path.join(dist, 'manifest.json'), JSON.stringify(manifest));
// `--docs`: rewrite the generated documents checked in under docs/ (a test checks they are current).
if (process.argv.includes('--docs')) {
  await mkdir(path.join(root, 'docs'), { recursive: true });
  await writeFile(path.join(root, 'docs', 'commands.md'), generated.commandsMarkdown(manifest));
  console.error('wrote docs/commands.md');
  await writeFile(path.join(root, 'docs', 'openapi.json'), `${JSON.stringify(await generated.openapiDocument(manifest), null, 2)}\n`);
  console.error('wrote docs/openapi.json');
  for (const [file, text] of Object.entries(generated.completionFiles(manifest))) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
    console.error(`wrote ${file}`);
  }
}
const old = path.join(root, `.tmp/dist-old-${process.pid}`);
await rename(finalDist, old).catch(() => {});
await rename(dist, finalDist);
await rm(old, { recursive: true, force: true });
await rm(tmp, { recursive: true, force: true });
console.error(`built dist/ with ${manifest.commands.length} commands`);
