// `npm run demo`: starts the built-in emulator with demo data, logs a `demo`
// profile in to it, and runs a short tour of real commands. On a terminal the
// emulator keeps running afterwards so the profile can be used; in a pipe or
// CI it stops when the tour ends, and the tour says so. The HTML report is
// kept in both cases (its path is printed). The emulator listens on a fixed port
// (DEMO_PORT, default 47800) with a fixed token so the profile stays valid when
// it is started again with `backupctl emulator --port 47800 --token demo-token-0000 --bad-night`.
// What the tour says about the fleet is phrased from `status --json` and
// `report --json` (demo-story.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { anomaliesStory, assuranceStory, checkRefuses, checkStory, diffStory, reportStory, restoreStory, statusAnomaliesStory, statusStory, verifyStory } from './demo-story.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin', 'backupctl.cjs');
const PORT = process.env.DEMO_PORT?.trim() || '47800';
const TOKEN = 'demo-token-0000';
const interactive = process.stdin.isTTY && process.stdout.isTTY && !process.env.CI;

/** One line on stderr and the exit code: what a user needs, never a stack trace. */
function stop(message, code) {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(code);
}

if (!/^\d{1,5}$/.test(PORT) || Number(PORT) > 65535) stop(`DEMO_PORT must be a port number from 0 to 65535, not "${PORT}"`, 2);

// --bad-night: two more jobs, "file share" with two nights of ransomware after 20 clean ones and "crm postgres" whose
// newest dump lost 90% of its orders (docs/anomalies.md), for the anomalies and diff steps.
const emulator = spawn(process.execPath, [bin, 'emulator', '--port', PORT, '--token', TOKEN, '--seed', 'demo', '--bad-night'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
let emulatorErrors = '';
const collectErrors = (chunk) => (emulatorErrors += chunk);
emulator.stderr.setEncoding('utf8').on('data', collectErrors);
const env = await new Promise((resolve) => {
  const found = {};
  const rl = createInterface({ input: emulator.stdout });
  rl.on('line', (line) => {
    const m = /^(BACKUPCTL_BASE_URL|BACKUPCTL_TOKEN)=(.*)$/.exec(line);
    if (m) found[m[1]] = m[2];
    if (found.BACKUPCTL_BASE_URL && found.BACKUPCTL_TOKEN) resolve(found);
  });
  const failed = (detail) => {
    if (/EADDRINUSE|EACCES/.test(detail)) {
      const next = Number(PORT) === 65535 ? 47801 : Number(PORT) + 1;
      stop(`port ${PORT} is busy or not allowed; choose another with DEMO_PORT, e.g. DEMO_PORT=${next} npm run demo`, 1);
    }
    stop(`the emulator stopped before it was ready: ${detail.trim().split('\n')[0] || 'no message'}`, 1);
  };
  emulator.on('error', (err) => failed(err.message));
  emulator.on('exit', (code) => failed(emulatorErrors || `exit ${code}`));
});
// Ready: from here on the emulator's own messages go to the terminal, except its "Emulator running; Ctrl-C
// to stop" line: the tour says itself whether the emulator keeps running (off a terminal it does not).
emulator.stderr.off('data', collectErrors);
createInterface({ input: emulator.stderr }).on('line', (line) => {
  if (!line.startsWith('Emulator running; Ctrl-C to stop')) process.stderr.write(`${line}\n`);
});
const port = new URL(env.BACKUPCTL_BASE_URL).port;

const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[22m` : s);
const childEnv = { ...process.env };
for (const k of ['BACKUPCTL_BASE_URL', 'BACKUPCTL_TOKEN', 'BACKUPCTL_PROFILE', 'BACKUPCTL_OUTPUT']) delete childEnv[k];
// The tour's own state folder: its verify and restore-test marks stay apart from the user's, and every
// tour starts with none (a second tour does not report the first one's). Removed when the tour ends.
const tourState = mkdtempSync(path.join(tmpdir(), 'backupctl-demo-state-'));
childEnv.XDG_STATE_HOME = tourState;

/** An argument as it would be typed in a shell: a name with a space in quotes ("marketing site"). */
function shellWord(arg) {
  if (/^[\w./:=@,+%-]+$/.test(arg)) return arg;
  return /["$`\\!]/.test(arg) ? `'${arg.replace(/'/g, `'\\''`)}'` : `"${arg}"`;
}

let unexpected = 0;
/** Shows and runs one command of the tour; `expect` is the exit code it should give; `cwd` where it runs (a file named by a short path). */
function run(title, args, { input, expect = 0, cwd } = {}) {
  process.stdout.write(`\n${bold(`# ${title}`)}\n${bold(`$ backupctl ${args.map(shellWord).join(' ')}`)}\n`);
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: childEnv,
    cwd,
    input,
    stdio: [input === undefined ? 'inherit' : 'pipe', 'inherit', 'inherit'],
  });
  if (r.status !== 0) process.stdout.write(`(exit ${r.status})\n`);
  if (r.status !== expect) {
    unexpected++;
    process.stderr.write(`demo: expected exit ${expect}, got ${r.status}\n`);
  }
}

/** Runs a command for the tour's own use (not shown); its stdout, or undefined when it failed (an exit not in `codes`). */
function read(args, codes = [0]) {
  const r = spawnSync(process.execPath, [bin, ...args], { env: childEnv, encoding: 'utf8' });
  if (codes.includes(r.status)) return r.stdout;
  unexpected++;
  process.stderr.write(`demo: backupctl ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}\n`);
  return undefined;
}

const demo = ['--profile', 'demo'];
/** Where the tour writes the HTML report; kept when the tour ends (the closing words say where). */
let reportDir;
let reportFile;
/** The assurance plan of the tour (in its state folder), once written; the HTML report then carries its evidence. */
let planFile;
/** Whether a PostgreSQL engine restored "api postgres": the assurance plan's restore test needs one. */
let pgEngine = false;
try {
  run('Log a "demo" profile in to the emulator (the token comes on stdin)', ['auth', 'login', ...demo, '--base-url', env.BACKUPCTL_BASE_URL, '--with-token'], {
    input: `${env.BACKUPCTL_TOKEN}\n`,
  });
  run('Who am I?', [...demo, 'auth', 'status', '-o', 'table']);
  run('The SSH keys the service logs in with', [...demo, 'ssh-keys', 'list', '-o', 'table']);
  run('Servers, first page (the list has more: --all walks every page)', [...demo, 'servers', 'list', '-o', 'table']);
  run('Backup jobs', [...demo, 'jobs', 'list', '-o', 'table']);
  const statusJson = read([...demo, 'status', '--json']);
  if (statusJson !== undefined) {
    const doc = JSON.parse(statusJson);
    run(`Is everything backed up? ${statusStory(doc)}`, [...demo, 'status', '-o', 'table']);
    run(`For cron or monitoring: ${checkStory(doc)}`, [...demo, 'status', '--check', '-q'], { expect: checkRefuses(doc).length ? 9 : 0 });
  }
  // verify: a good job's newest backup reads back whole; git server's newest (CORRUPTED_DEMO_JOB of
  // src/emulator/verify-fixtures.ts) has a flipped byte that status cannot see. Titles from verify --json.
  for (const [name, code] of [['marketing site', 0], ['git server', 11]]) {
    const verifyJson = read([...demo, 'verify', name, '--latest', '--json'], [code]);
    if (verifyJson === undefined) continue;
    const health = statusJson === undefined ? undefined : JSON.parse(statusJson).jobs.find((j) => j.name === name)?.health;
    run(verifyStory(JSON.parse(verifyJson), health), [...demo, 'verify', name, '--latest', '-o', 'table'], { expect: code });
  }
  // The verify left a mark on git server's newest backup: status judges the job by it now (words from status --json).
  const afterJson = read([...demo, 'status', '--job', 'git server', '--json']);
  if (afterJson !== undefined) run(`And status now? ${statusStory(JSON.parse(afterJson))}`, [...demo, 'status', '--job', 'git server', '-o', 'table']);
  // restore-test: the data comes back. The PostgreSQL job when an engine is at hand (a local server,
  // BACKUPCTL_RESTORE_URL or PGlite), else a file archive extracted with a check run inside it.
  {
    const tries = [[['api postgres'], [0]], [['archive files', '--exec', 'test -d data'], [0]]];
    for (const [args] of tries) {
      const restoreJson = spawnSync(process.execPath, [bin, ...demo, 'restore-test', ...args, '--json'], { env: childEnv, encoding: 'utf8' });
      if (restoreJson.status !== 0) {
        // Said, not hidden: without PostgreSQL (or PGlite) on this machine the tour restores a file archive instead.
        const why = (restoreJson.stderr.split('\n').find((l) => l.startsWith('error: ')) ?? `exit ${restoreJson.status}`).replace(/^error: /, '');
        process.stdout.write(`\n${bold(`# restore-test ${args.map(shellWord).join(' ')}: ${why} (exit ${restoreJson.status})`)}\n`);
        continue;
      }
      run(restoreStory(JSON.parse(restoreJson.stdout)), [...demo, 'restore-test', ...args, '-o', 'table']);
      pgEngine = args[0] === 'api postgres';
      break;
    }
  }
  // Encrypted backups (issue 29 §5): "shop mysql" is sealed as the service seals backups, with the demo-only key
  // pair of src/emulator/fixtures/demo-key. The job is given its private key once in the profile, so verify and
  // restore-test decrypt on the way with a short command line. Titles from their --json, as above.
  {
    const demoKey = path.join(root, 'src', 'emulator', 'fixtures', 'demo-key', 'demo-private.pem');
    run('Encrypted backups: give the job its private key once (this key pair is published, for the demo only)', [...demo, 'config', 'set', 'jobs.shop mysql.private_key', demoKey]);
    const verifyJson = read([...demo, 'verify', 'shop mysql', '--latest', '--json']);
    if (verifyJson !== undefined) run(verifyStory(JSON.parse(verifyJson)), [...demo, 'verify', 'shop mysql', '--latest', '-o', 'table']);
    const restoreJson = spawnSync(process.execPath, [bin, ...demo, 'restore-test', 'shop mysql', '--json'], { env: childEnv, encoding: 'utf8' });
    if (restoreJson.status === 0) run(restoreStory(JSON.parse(restoreJson.stdout)), [...demo, 'restore-test', 'shop mysql', '-o', 'table']);
    else {
      // Said, not hidden: without MySQL or MariaDB on this machine there is no engine to restore the dump into.
      const why = (restoreJson.stderr.split('\n').find((l) => l.startsWith('error: ')) ?? `exit ${restoreJson.status}`).replace(/^error: /, '');
      process.stdout.write(`\n${bold(`# restore-test "shop mysql": ${why} (exit ${restoreJson.status})`)}\n`);
    }
  }
  // Which backup is clean (issue 33): the bad-night jobs' backups read into the catalog and judged against their own
  // history; then what changed from the last clean backup to the first bad one. Titles from anomalies --json and diff --json.
  for (const name of ['file share', 'crm postgres']) {
    const anomaliesJson = read([...demo, 'anomalies', name, '--json']);
    if (anomaliesJson === undefined) continue;
    const doc = JSON.parse(anomaliesJson);
    run(anomaliesStory(doc), [...demo, 'anomalies', name]);
    const firstBad = doc.jobs[0].backups.find((b) => b.verdict === 'anomalous');
    if (!firstBad?.last_clean) continue;
    const pair = [firstBad.last_clean.id, firstBad.backup_id];
    const diffJson = read([...demo, 'diff', name, ...pair, '--json']);
    if (diffJson !== undefined) run(diffStory(JSON.parse(diffJson), name), [...demo, 'diff', name, ...pair]);
  }
  // status shows what anomalies found in the catalog, as a warning of the job.
  const anomalousJson = read([...demo, 'status', '--job', 'file share', '--job', 'crm postgres', '--json']);
  if (anomalousJson !== undefined) run(statusAnomaliesStory(JSON.parse(anomalousJson)), [...demo, 'status', '--job', 'file share', '--job', 'crm postgres', '-o', 'table']);
  // Restore testing as a fleet policy (issue 44): an assurance plan in the backups file, run by `assure run`. Its
  // restore test of "crm postgres" checks two SQL assertions in the restored data: customers are there (it holds),
  // and orders are not fewer than 500 (it fails: the newest night lost 90% of them). The tests are due because the
  // tour's state starts empty; the backup is the newest, whatever the hour. The evidence's words come from report --json.
  if (pgEngine) {
    const plan = [
      'version: 1',
      'assurance:',
      '  "crm postgres":',
      '    restore_test_every: 7d',
      '    rto: 15m',
      '    validations:',
      '      - sql: "SELECT count(*) FROM public.customers"',
      '        expect: "> 0"',
      '      - sql: "SELECT count(*) FROM public.orders"',
      '        expect: ">= 500"',
      '',
    ].join('\n');
    planFile = path.join(tourState, 'assurance.yaml');
    writeFileSync(planFile, plan);
    process.stdout.write(`\n${bold('# Restore testing as a policy: an assurance plan in the backups file (assurance.yaml)')}\n${plan}`);
    run('Run the tests the plan says are due: the restore test checks both assertions in the restored data (exit 9: one failed)', [...demo, 'assure', 'run', '-f', 'assurance.yaml'], {
      expect: 9,
      cwd: tourState,
    });
    const evidenceJson = read([...demo, 'report', '--since', '1d', '--job', 'crm postgres', '--assurance', planFile, '--json']);
    if (evidenceJson !== undefined) run(assuranceStory(JSON.parse(evidenceJson).assurance), [...demo, 'assure', 'status', '-f', 'assurance.yaml', '-o', 'table'], { cwd: tourState });
  } else {
    process.stdout.write(`\n${bold('# assure run: skipped, its restore test of "crm postgres" needs PostgreSQL (or PGlite) on this machine, as restore-test above')}\n`);
  }
  const jobs = read([...demo, 'jobs', 'list', '--page-size', '15', '--json']);
  const job = jobs === undefined ? undefined : JSON.parse(jobs)[0]?.name;
  if (job) {
    run(`Start a manual backup of ${job}`, [...demo, 'jobs', 'backup', 'start', job, '--manual', '-o', 'table']);
    run('Its newest backups (--json or --jq for scripts)', [...demo, 'jobs', 'backup', 'list', job, '--sort', '-created_at', '--page-size', '15', '-o', 'table']);
  }
  run('Completed provider snapshots tagged daily', [...demo, 'snapshots', 'list', '--status', 'completed', '--tags', 'daily', '-o', 'table']);
  run('A bad flag value is caught before anything is sent (exit 2)', [...demo, 'snapshots', 'list', '--status', 'done'], { expect: 2 });

  // Did the schedules keep? `report` over the demo's history (docs/demo-data.md); the title is phrased from its JSON.
  const reportJson = read([...demo, 'report', '--since', '30d', '--json']);
  if (reportJson !== undefined) {
    run(`Did the schedules keep? ${reportStory(JSON.parse(reportJson))}`, [...demo, 'report', '--since', '30d', '-o', 'table']);
    reportDir = mkdtempSync(path.join(tmpdir(), 'backupctl-demo-report-'));
    reportFile = path.join(reportDir, 'report.html');
    const evidence = planFile ? ['--assurance', planFile] : [];
    run(`The same report as one HTML file: charts, no network request, printable${planFile ? ', with the restore testing evidence of the plan' : ''}`, [
      ...demo,
      'report',
      '--since',
      '30d',
      ...evidence,
      '-o',
      'html',
      '--output-file',
      reportFile,
    ]);
    if (existsSync(reportFile)) process.stdout.write(`Open it in a browser: file://${reportFile}\n`);
  }
} finally {
  // The same data as the tour's emulator (the bad-night jobs too), the same port and token: the profile stays valid.
  const again = `node bin/backupctl.cjs emulator --port ${port} --token ${TOKEN} --bad-night`;
  // What the tour's verify, restore-test and anomalies recorded was kept apart from the user's state (issue 42.12).
  const ownState = (when) => `The tour kept its marks and catalog in a state folder of its own (${tourState}, removed ${when}): your own status and anomalies start without them.\n`;
  if (interactive) {
    process.stdout.write(
      `\n${bold('The emulator is still running.')} In another terminal, go on with the demo profile:\n` +
        `  node bin/backupctl.cjs --profile demo jobs list\n` +
        `  node bin/backupctl.cjs profiles use demo      (make it the default)\n` +
        (reportFile && existsSync(reportFile) ? `The HTML report stays at ${reportFile}\n` : '') +
        ownState('when the emulator stops') +
        `Press Ctrl-C here to stop the emulator; start it again with: ${again}\n`,
    );
    await new Promise((resolve) => {
      process.on('SIGINT', resolve);
      emulator.on('exit', resolve);
    });
  } else {
    // Off a terminal (a pipe, `| tee log`, CI) nobody can press Ctrl-C: the emulator stops with the tour.
    process.stdout.write(
      `\n${bold('Not on a terminal (or CI is set), so the emulator stops now, with the tour.')} Run \`npm run demo\` on a terminal to keep it running,\n` +
        `or start it again yourself: ${again}\n` +
        ownState('now') +
        (reportFile && existsSync(reportFile) ? `The HTML report stays at ${reportFile}\n` : ''),
    );
  }
  emulator.removeAllListeners('exit');
  emulator.kill('SIGTERM');
  rmSync(tourState, { recursive: true, force: true });
  if (reportDir && !existsSync(reportFile)) rmSync(reportDir, { recursive: true, force: true });
}
process.exitCode = unexpected === 0 ? 0 : 1;
if (unexpected) process.stderr.write(`demo: ${unexpected} step(s) went unexpectedly\n`);
