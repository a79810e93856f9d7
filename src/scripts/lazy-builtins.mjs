// An esbuild plugin: two node built-ins that dependencies load at start-up
// but backupctl never uses are loaded on first use instead.
// - undici requires node:http2 (which loads tls and crypto) for HTTP/2, off
//   by default and never enabled here: ~5 ms of every request-making command.
//   Its top level reads `http2.constants`, so the stand-in carries those,
//   copied from this node at build time (protocol constants: the same on every
//   node that can run backupctl); anything else loads the real module.
// - undici requires node:assert (~1 ms) and only ever calls assert(value).
// - commander requires node:child_process for stand-alone executable
//   subcommands, which backupctl has none of: ~2.5 ms of every command.
// - undici requires node:http (~4 ms: it loads the HTTP server too) for two
//   things: the IncomingMessage class, compared against in one error path,
//   and http.maxHeaderSize, read at load time as the default for a Client's
//   maxHeaderSize. Both become reads on first use (patched below); the
//   client always passes maxHeaderSize (src/http/client.ts), so node:http is
//   never loaded. Each patch must match undici's source exactly once, or the
//   build fails: an undici upgrade cannot silently skip one.
// - undici's client requires its HTTP/2 half (client-h2.js) and its proxy
//   agent the SOCKS5 agent (three modules) at load time: both become requires
//   on first use (patched below), for an h2 connection or a socks5:// proxy.
// And three packages are left out of the bundle altogether: conf (loaded only
// to write the config file) imports ajv and ajv-formats for its `schema`
// option and semver for its `migrations` option, and src/config/store.ts
// passes neither (zod checks the file), so conf never calls them. Leaving
// them out (with ajv's fast-uri) keeps ~170 kB out of dist/main.cjs, of the
// 3 MB an install may take (issue 14); their stand-in throws, naming the
// package, should conf ever reach one.
import { readFile } from 'node:fs/promises';
import { constants } from 'node:http2';

const STAND_INS = {
  'node:http2': {
    from: /[\\/]node_modules[\\/]undici[\\/]/,
    contents: `const constants = ${JSON.stringify(constants)};
let real;
const load = () => (real ??= require('node:http2'));
module.exports = new Proxy({ constants }, { get: (target, key) => (key === 'constants' ? constants : load()[key]) });
`,
  },
  'node:assert': {
    from: /[\\/]node_modules[\\/]undici[\\/]/,
    // undici only calls assert(value) (no assert.x methods), on paths that pass: the
    // real module (~1 ms) loads when one fails, and throws its AssertionError. Its
    // message quotes this call site rather than undici's (a bug report would say so).
    contents: `let real;
const load = () => (real ??= require('node:assert'));
function assert(value, message) {
  if (!value) load()(value, message);
}
module.exports = new Proxy(assert, { get: (target, key) => (key in target ? target[key] : load()[key]) });
`,
  },
  'node:child_process': {
    from: /[\\/]node_modules[\\/]commander[\\/]/,
    contents: `let real;
const load = () => (real ??= require('node:child_process'));
module.exports = new Proxy({}, { get: (target, key) => load()[key] });
`,
  },
};

const UNDICI_PATCHES = {
  'lib/core/util.js': [
    [
      "const { IncomingMessage } = require('node:http')",
      "let IncomingMessage\nconst incomingMessage = () => (IncomingMessage ??= require('node:http').IncomingMessage)",
    ],
    ['.constructor === IncomingMessage)', '.constructor === incomingMessage())'],
  ],
  'lib/dispatcher/client.js': [
    ["const http = require('node:http')", "let http\nconst loadHttp = () => (http ??= require('node:http'))"],
    // HTTP/2 (client-h2.js, and node:http2's stand-in with it) only for a connection that negotiated h2, never here.
    ["const connectH2 = require('./client-h2.js')", "const connectH2 = (...args) => require('./client-h2.js')(...args)"],
    [
      "const getDefaultNodeMaxHeaderSize = http &&\n  http.maxHeaderSize &&\n  Number.isInteger(http.maxHeaderSize) &&\n  http.maxHeaderSize > 0\n  ? () => http.maxHeaderSize\n  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }",
      "const getDefaultNodeMaxHeaderSize = () => {\n  const size = loadHttp().maxHeaderSize\n  if (Number.isInteger(size) && size > 0) return size\n  throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid')\n}",
    ],
  ],
  // The SOCKS5 agent (three modules) only for a socks5:// proxy.
  'lib/dispatcher/proxy-agent.js': [
    ["const Socks5ProxyAgent = require('./socks5-proxy-agent')", "let Socks5ProxyAgent\nconst loadSocks5 = () => (Socks5ProxyAgent ??= require('./socks5-proxy-agent'))"],
    ['return new Socks5ProxyAgent(', 'return new (loadSocks5())('],
  ],
};

/** `text` with each [from, to] replaced; every `from` must occur exactly once. */
export function patchSource(file, text, patches) {
  for (const [from, to] of patches) {
    const count = text.split(from).length - 1;
    if (count !== 1) throw new Error(`lazy-builtins: expected one "${from.split('\n')[0]}" in ${file}, found ${count}; update src/scripts/lazy-builtins.mjs`);
    text = text.replace(from, () => to);
  }
  return text;
}

/** The packages conf imports for options backupctl does not use (see the top of this file). */
const LEFT_OUT = { from: /[\\/]node_modules[\\/]conf[\\/]/, filter: /^(ajv\/dist\/2020\.js|ajv-formats|semver)$/ };

/** The spinners ora uses by default: its only ones in backupctl. */
const SPINNERS_KEPT = ['dots', 'line'];

export const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]undici[\\/]lib[\\/](core[\\/]util|dispatcher[\\/]client|dispatcher[\\/]proxy-agent)\.js$/ }, async (args) => {
      const key = args.path.replace(/\\/g, '/').replace(/.*\/node_modules\/undici\//, '');
      const patches = UNDICI_PATCHES[key];
      if (!patches) return undefined;
      return { contents: patchSource(key, await readFile(args.path, 'utf8'), patches), loader: 'js' };
    });
    build.onResolve({ filter: /^node:(http2|child_process|assert)$/ }, (args) => {
      const standIn = STAND_INS[args.path];
      if (!standIn || !standIn.from.test(args.importer)) return undefined;
      return { path: args.path, namespace: 'lazy-builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({ contents: STAND_INS[args.path].contents, loader: 'js' }));
    // ora draws `dots` (`line` where the terminal lacks Unicode) and is never given another name
    // (src/output/spinner.ts): cli-spinners' other spinners (32 kB of the installed package) are left out.
    build.onLoad({ filter: /[\\/]node_modules[\\/]cli-spinners[\\/]spinners\.json$/ }, async (args) => {
      const all = JSON.parse(await readFile(args.path, 'utf8'));
      const kept = Object.fromEntries(SPINNERS_KEPT.map((name) => {
        if (!all[name]) throw new Error(`cli-spinners has no spinner ${name}: ora's defaults changed (src/scripts/lazy-builtins.mjs)`);
        return [name, all[name]];
      }));
      return { contents: JSON.stringify(kept), loader: 'json' };
    });
    build.onResolve({ filter: LEFT_OUT.filter }, (args) => (LEFT_OUT.from.test(args.importer) ? { path: args.path, namespace: 'left-out' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({ contents: leftOutSource(args.path), loader: 'js' }));
  },
};

/** A left-out package's stand-in: any member it is asked for throws when called or constructed. */
export function leftOutSource(name) {
  const message = `${name} is left out of backupctl's bundle (src/scripts/lazy-builtins.mjs): conf's schema and migrations options are not used`;
  return `function leftOut() { throw new Error(${JSON.stringify(message)}); }
module.exports = new Proxy({}, { get: (target, key) => (typeof key === 'symbol' || key === '__esModule' ? undefined : leftOut) });
`;
}

/** The stand-in's source for a built-in, and the undici patches (for tests). */
export function standInSource(name) {
  return STAND_INS[name]?.contents;
}
export { UNDICI_PATCHES };
