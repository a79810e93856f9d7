'use strict';
// A code cache for one word's commands (dist/cache/<word>.cache, src/boot.cjs), made by the build
// (src/scripts/build.mjs) in a process of its own: V8 puts in a cache every function the process
// compiled, so a process that had run other commands would put theirs in too.
// node train-cache.cjs <dist> <out file> <argv as JSON>... (the emulator and config dir in the environment)
const { writeFileSync, mkdirSync } = require('node:fs');
const path = require('node:path');
const { Writable } = require('node:stream');

async function main() {
  const [dir, out, ...argvs] = process.argv.slice(2);
  const { exports: cli, script, id } = require(path.join(dir, 'boot.cjs')).load(dir, { cache: false });
  for (const argv of argvs.map((a) => JSON.parse(a))) {
    const sink = () => new Writable({ write: (_chunk, _enc, cb) => cb() });
    const io = { stdout: sink(), stderr: sink(), stdin: process.stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 100 };
    const code = await cli.run(argv, io, process.env);
    if (code !== 0 && !argv.includes('--help')) throw new Error(`training run \`backupctl ${argv.join(' ')}\` exited ${code}`);
  }
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, Buffer.concat([Buffer.from(`${id}\n`, 'latin1'), script.createCachedData()]));
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  },
);
