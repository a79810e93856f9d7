#!/usr/bin/env node
'use strict';
// Launcher. `--version` answers here; everything else is the bundle in dist/,
// loaded with V8's code cache by dist/boot.cjs (see src/boot.cjs).
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  require('../dist/boot.cjs').load().exports.cli();
}
