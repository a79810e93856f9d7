'use strict';
// Loads dist/main.cjs, the CLI as a CommonJS bundle, with V8's code cache,
// and dist/cold.cjs (the modules start-up and the common commands do not use,
// src/scripts/split-bundle.mjs) the same way, when the first of them is
// imported. Copied as is to dist/boot.cjs by the build; plain JavaScript
// because it runs before anything else and must stay tiny.
//
// Why: most of a command's start-up was compiling JavaScript (about 15 ms
// spread over ESM chunks). The build runs a few commands in-process and saves
// what V8 compiled (dist/main.cache); a start then reads that instead of
// parsing and compiling the same functions again. Functions outside the
// cache compile lazily as usual, so a cache that does not cover a command
// only costs that command what it cost before.
//
// Safety: V8 refuses a cache made by another V8 version or with other flags
// (it then compiles from source as if there were none). It only checks the
// source's LENGTH, not its content, so the cache also carries the build id
// from the bundle's first line: a cache from another build is never handed
// to V8.
//
// When dist/main.cache is missing or refused (another node version than the
// one that built it), the first run writes one for this node under the user's
// cache folder ($XDG_CACHE_HOME/backupctl or ~/.cache/backupctl; off with
// BACKUPCTL_NO_CODE_CACHE=1), and later runs use that. Likewise dist/cold.cache
// for dist/cold.cjs (cold-<id>-... in that folder).
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

/** The flags the cache is made and used with (V8 refuses a cache made with other flags). */
function setFlags() {
  // undici parses HTTP with a WebAssembly build of llhttp; V8 compiles it with
  // Liftoff and then again with TurboFan in the background, which on a
  // short-lived CLI only burns a core (and kept a finished process alive
  // ~100 ms). Liftoff alone is plenty for parsing a few answers.
  require('node:v8').setFlagsFromString('--liftoff-only');
}

/** The build id on the bundle's first line: `// backupctl build <id>` (cold.cjs: `... <id> main <main.cjs's id>`). */
function buildIdOf(source) {
  const m = /^\/\/ backupctl build (\S+)[ \n]/.exec(source.slice(0, 120));
  return m ? m[1] : undefined;
}

/** A cache file is `<build id>\n` followed by V8's data. */
function cacheData(buffer, id) {
  const nl = buffer.indexOf(10);
  if (nl <= 0 || id === undefined || buffer.toString('latin1', 0, nl) !== id) return undefined;
  return buffer.subarray(nl + 1);
}

/** The user's cache of a bundle: `code-` for main.cjs, `cold-` for cold.cjs. */
function userCacheFile(env, id, prefix = 'code') {
  if (env.BACKUPCTL_NO_CODE_CACHE === '1' || id === undefined) return undefined;
  const home = env.XDG_CACHE_HOME || (env.HOME ? path.join(env.HOME, '.cache') : undefined);
  if (!home || !path.isAbsolute(home)) return undefined;
  return path.join(home, 'backupctl', `${prefix}-${id}-${process.version}-${process.arch}.cache`);
}

function readIf(file) {
  try {
    return file === undefined ? undefined : fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Compiles and runs `<dir>/main.cjs`; returns its exports and the vm.Script
 * (the build asks it for the cache after its training run), and `cold()`,
 * which loads `<dir>/cold.cjs` if it is not yet and returns the same for it.
 * `cache: false` compiles from source and writes nothing.
 */
function load(dir = __dirname, { cache = true, env = process.env, argv = process.argv.slice(2) } = {}) {
  const bundle = (name) => {
    const file = path.join(dir, `${name}.cjs`);
    const word = name === 'main' && cache ? wordCacheFile(dir, argv) : undefined;
    const builtCache = cache ? (word !== undefined && readIf(word)) || readIf(path.join(dir, `${name}.cache`)) : undefined;
    return { bytes: fs.readFileSync(file), builtCache, file };
  };
  return linked(bundle, { cache, env });
}

/**
 * The cache the build made for the command line's first word, if any:
 * `dist/cache/<word>.cache`, `top` for none (`backupctl --help`). V8 reads
 * all of a code cache before the first line runs, and main.cache holds what
 * several groups' commands ran (0.8 MB): a cache made from one group's
 * commands alone is smaller, and those commands start faster with it
 * (docs/startup.md). Any other word (or a flag's value before the word) uses
 * main.cache.
 */
function wordCacheFile(dir, argv) {
  const word = argv.find((a) => !a.startsWith('-')) ?? 'top';
  return /^[a-z][a-z0-9-]{0,30}$/.test(word) ? path.join(dir, 'cache', `${word}.cache`) : undefined;
}

/**
 * The single executable (`npm run package`, src/scripts/sea.mjs): the bundle
 * and the build's code cache are assets of the executable's blob, compiled
 * exactly as load() compiles dist/ (Node's own `useCodeCache` only covers
 * the functions a script compiles eagerly; the build's cache holds what a
 * few real commands ran). The executable is made from the node that built
 * dist/, so V8 takes the cache; another node never runs this blob.
 */
function loadFromSea({ env = process.env } = {}) {
  const sea = require('node:sea');
  const asset = (name) => Buffer.from(sea.getAsset(name));
  return linked((name) => ({ bytes: asset(`${name}.cjs`), builtCache: asset(`${name}.cache`), file: process.execPath }), { cache: true, env });
}

/**
 * main.cjs, with cold.cjs behind `module.loadCold()`: the table of the cold
 * modules main.cjs imports. cold.cjs gets main.cjs's table of the modules it
 * imports from there as `module.core` (src/scripts/split-bundle.mjs).
 */
function linked(bundle, { cache, env }) {
  let cold;
  const loadCold = () => {
    if (!cold) {
      const c = bundle('cold');
      // Its first line names the main.cjs it was built with: a backupctl reinstalled while a command ran
      // would otherwise mix two builds' modules.
      const wanted = / main (\S+)\n/.exec(c.bytes.toString('latin1', 0, 120))?.[1];
      if (wanted !== main.id) throw new Error(`${c.file} is not from the build of the running backupctl (reinstalled while it ran?): run the command again`);
      cold = compile(c.bytes, c.builtCache, c.file, { cache, env, prefix: 'cold', props: { core: main.exports.coreModules } });
    }
    return cold;
  };
  const m = bundle('main');
  const main = compile(m.bytes, m.builtCache, m.file, { cache, env, props: { loadCold: () => loadCold().exports } });
  return { ...main, cold: loadCold };
}

function compile(bytes, builtCache, file, { cache, env, prefix = 'code', props = {} }) {
  setFlags();
  // The bundle is ASCII (esbuild escapes the rest): decoding it as latin1 is a
  // plain copy, ~1.5 ms less than UTF-8 for 1.5 MB.
  const source = require('node:buffer').isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const id = buildIdOf(source);
  let cachedData;
  let userFile;
  if (cache) {
    cachedData = cacheData(builtCache ?? Buffer.alloc(0), id);
    if (cachedData === undefined) {
      userFile = userCacheFile(env, id, prefix);
      cachedData = cacheData(readIf(userFile) ?? Buffer.alloc(0), id);
    }
  }
  // The build wrote the bundle inside the function Module.wrap() would put it in (src/scripts/build.mjs).
  const script = new vm.Script(source, {
    // One name wherever the bundle lies: V8 keeps the name a code cache was made with, so a stack trace named
    // the build's temporary folder (.tmp/dist-<pid>/main.cjs), which no longer exists, whenever the cache was used.
    filename: `backupctl/dist/${path.basename(file)}`,
    cachedData,
    // The bundle has no import() of its own (esbuild inlines them); should a
    // dependency keep one, it resolves as it would in a required file.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const rejected = cachedData === undefined || script.cachedDataRejected === true;
  // `props`: what the bundle reads from its `module` (loadCold, core), see linked().
  const mod = Object.assign(props, { exports: {} });
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  if (cache && rejected) {
    userFile ??= userCacheFile(env, id, prefix);
    if (userFile) process.once('exit', () => writeUserCache(userFile, id, script, prefix));
  }
  return { exports: mod.exports, module: mod, script, id, cacheUsed: !rejected };
}

/** Best effort: a cache that cannot be written is simply not there next time. */
function writeUserCache(file, id, script, prefix) {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, Buffer.concat([Buffer.from(`${id}\n`, 'latin1'), script.createCachedData()]), { mode: 0o600 });
    fs.renameSync(tmp, file);
    // Caches of earlier builds (an upgrade, another node) are never read again.
    const dir = path.dirname(file);
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith(`${prefix}-`) && name.endsWith('.cache') && name !== path.basename(file)) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // read-only home, full disk: start-up stays as fast as without a cache
  }
}

module.exports = { load, loadFromSea, buildIdOf, cacheData };
