// An esbuild plugin: two node built-ins that dependencies load at start-up
// but backupctl never uses are loaded on first use instead.
// - undici requires node:http2 (which loads tls and crypto) for HTTP/2, off
//   by default and never enabled here: ~5 ms of every request-making command.
//   Its top level reads `http2.constants`, so the stand-in carries those,
//   copied from this node at build time (protocol constants: the same on every
//   node that can run backupctl); anything else loads the real module.
// - commander requires node:child_process for stand-alone executable
//   subcommands, which backupctl has none of: ~2.5 ms of every command.
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
  'node:child_process': {
    from: /[\\/]node_modules[\\/]commander[\\/]/,
    contents: `let real;
const load = () => (real ??= require('node:child_process'));
module.exports = new Proxy({}, { get: (target, key) => load()[key] });
`,
  },
};

export const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    build.onResolve({ filter: /^node:(http2|child_process)$/ }, (args) => {
      const standIn = STAND_INS[args.path];
      if (!standIn || !standIn.from.test(args.importer)) return undefined;
      return { path: args.path, namespace: 'lazy-builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({ contents: STAND_INS[args.path].contents, loader: 'js' }));
  },
};

/** The stand-in's source for a built-in (tests check it behaves as the real one). */
export function standInSource(name) {
  return STAND_INS[name]?.contents;
}
