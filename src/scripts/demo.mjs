// `npm run demo`: starts the built-in emulator with demo data, logs a `demo`
// profile in to it, and runs a short tour of real commands. On a terminal the
// emulator keeps running afterwards so the profile can be used; in a pipe or
// CI it stops when the tour ends. The emulator listens on a fixed port with a
// fixed token so the profile stays valid when it is started again with
// `backupctl emulator --port 47800 --token demo-token-0000`.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin', 'backupctl.cjs');
const PORT = process.env.DEMO_PORT ?? '47800';
const TOKEN = 'demo-token-0000';
const interactive = process.stdin.isTTY && process.stdout.isTTY && !process.env.CI;

const emulator = spawn(process.execPath, [bin, 'emulator', '--port', PORT, '--token', TOKEN, '--seed', 'demo'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const env = await new Promise((resolve, reject) => {
  const found = {};
  const rl = createInterface({ input: emulator.stdout });
  rl.on('line', (line) => {
    const m = /^(BACKUPCTL_BASE_URL|BACKUPCTL_TOKEN)=(.*)$/.exec(line);
    if (m) found[m[1]] = m[2];
    if (found.BACKUPCTL_BASE_URL && found.BACKUPCTL_TOKEN) resolve(found);
  });
  emulator.on('exit', (code) => reject(new Error(`the emulator stopped (exit ${code}); is port ${PORT} in use? Try DEMO_PORT=47801 npm run demo`)));
});

const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[22m` : s);
const childEnv = { ...process.env };
for (const k of ['BACKUPCTL_BASE_URL', 'BACKUPCTL_TOKEN', 'BACKUPCTL_PROFILE', 'BACKUPCTL_OUTPUT']) delete childEnv[k];

function step(title, args, input) {
  process.stdout.write(`\n${bold(`# ${title}`)}\n${bold(`$ backupctl ${args.join(' ')}`)}\n`);
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: childEnv,
    input,
    stdio: [input === undefined ? 'inherit' : 'pipe', 'inherit', 'inherit'],
  });
  return r.status;
}

let failed = 0;
const run = (title, args, input) => {
  const code = step(title, args, input);
  if (code !== 0) {
    failed++;
    process.stdout.write(`(exit ${code})\n`);
  }
};

try {
  run('Log a "demo" profile in to the emulator (the token comes on stdin)', ['auth', 'login', '--profile', 'demo', '--base-url', env.BACKUPCTL_BASE_URL, '--with-token'], `${env.BACKUPCTL_TOKEN}\n`);
  run('Who am I?', ['--profile', 'demo', 'auth', 'status']);
  run('The SSH keys the service logs in with', ['--profile', 'demo', 'ssh-keys', 'list', '-o', 'table']);
  run('Servers, first page (the list has more: --all walks every page)', ['--profile', 'demo', 'servers', 'list', '-o', 'table']);
  run('Backup jobs', ['--profile', 'demo', 'jobs', 'list', '-o', 'table']);
  run('Is everything backed up? One failing job and one stale one, worst first', ['--profile', 'demo', 'status', '-o', 'table']);
  const jobs = spawnSync(process.execPath, [bin, '--profile', 'demo', 'jobs', 'list', '-q', '--page-size', '15'], { env: childEnv, encoding: 'utf8' });
  const job = jobs.stdout.split('\n').find(Boolean);
  if (job) {
    run('Start a manual backup of the first job', ['--profile', 'demo', 'jobs', 'backup', 'start', job, '--manual', '-o', 'table']);
    run('Its newest backups, newest first, as JSON for scripts', ['--profile', 'demo', 'jobs', 'backup', 'list', job, '--sort', '-created_at', '--page-size', '15', '--json']);
  }
  run('Completed provider snapshots tagged daily', ['--profile', 'demo', 'snapshots', 'list', '--status', 'completed', '--tags', 'daily', '-o', 'table']);
  run('A bad flag value is caught before anything is sent (exit 2)', ['--profile', 'demo', 'snapshots', 'list', '--status', 'done']);
} finally {
  if (interactive) {
    process.stdout.write(
      `\n${bold('The emulator is still running.')} In another terminal, go on with the demo profile:\n` +
        `  npx backupctl --profile demo jobs list        (or: node bin/backupctl.cjs --profile demo ...)\n` +
        `  npx backupctl profiles use demo               (make it the default)\n` +
        `Press Ctrl-C here to stop the emulator.\n`,
    );
    await new Promise((resolve) => {
      process.on('SIGINT', resolve);
      emulator.on('exit', resolve);
    });
  }
  emulator.kill('SIGTERM');
}
// The tour includes one command that must fail (the bad flag): only that one may.
process.exitCode = failed === 1 ? 0 : 1;
if (failed !== 1) process.stderr.write(`demo: ${failed - 1} step(s) failed unexpectedly\n`);
