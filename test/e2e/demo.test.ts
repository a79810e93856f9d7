// `npm run demo` (src/scripts/demo.mjs) as a newcomer runs it: the whole tour
// passes against its own emulator, what it says about the fleet is what status
// shows, and a busy or bad DEMO_PORT is one line on stderr, not a stack trace.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ROOT, cleanEnv, tempConfigDir, type CliResult } from '../helpers/cli.js';
import { CORRUPTED_DEMO_JOB } from '../../src/emulator/verify-fixtures.js';
import { newestNight } from '../../src/emulator/bad-night.js';

const DEMO = path.join(ROOT, 'src', 'scripts', 'demo.mjs');

function runDemo(env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // CI keeps the tour from waiting for Ctrl-C, whatever the terminal.
    const child = spawn(process.execPath, [DEMO], { env: cleanEnv({ CI: '1', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('npm run demo', () => {
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('says in one line that the port is busy and names DEMO_PORT (it died with a stack trace)', async () => {
    const cfg = tempConfigDir();
    try {
      const r = await runDemo({ DEMO_PORT: String(busyPort), BACKUPCTL_CONFIG_DIR: cfg.dir });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`demo: port ${busyPort} is busy or not allowed; choose another with DEMO_PORT, e.g. DEMO_PORT=${busyPort + 1} npm run demo\n`);
    } finally {
      cfg.cleanup();
    }
  });

  it('refuses a DEMO_PORT that is not a port, in one line, exit 2', async () => {
    const r = await runDemo({ DEMO_PORT: '47800x' });
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'demo: DEMO_PORT must be a port number from 0 to 65535, not "47800x"\n' });
  });

  it('runs the whole tour, and says of the fleet what status shows', async () => {
    const cfg = tempConfigDir();
    // verify's ledger goes to the state folder: a temporary one, not the home of whoever runs the tests.
    const state = mkdtempSync(path.join(tmpdir(), 'backupctl-demo-state-'));
    // The HTML report is kept when the tour ends: in a temporary folder of the test's own.
    const tmp = mkdtempSync(path.join(tmpdir(), 'backupctl-demo-tmp-'));
    try {
      const started = Date.now();
      const r = await runDemo({ DEMO_PORT: '0', BACKUPCTL_CONFIG_DIR: cfg.dir, XDG_STATE_HOME: state, TMPDIR: tmp }, 200_000);
      expect(r.stderr).not.toMatch(/demo: |\n\s+at /);
      expect(r.code).toBe(0);
      const lines = r.stdout.split('\n');
      const title = lines.find((l) => l.startsWith('# Is everything backed up? '))!;
      // Its last five runs were missed, so its newest completed backup is about 5 days old (4 to 6 in whole days
      // across a clock change; docs/demo-data.md).
      const stalenessDays = /archive files \(newest completed backup ([4-6]) days old\)/.exec(title)?.[1];
      expect(title).toBe(
        // 8 jobs of the demo and the 3 of the bad night (file share, share zip, crm postgres: healthy, their runs kept).
        '# Is everything backed up? 11 jobs: 1 failing: crm-db-failing (its last 3 runs failed); ' +
          '1 stale: archive files (newest completed backup ' + stalenessDays + ' days old); 9 healthy',
      );
      // The table printed under that title agrees, row by row.
      const table = lines.slice(lines.indexOf(title) + 2);
      expect(table[0]).toBe('Jobs');
      const health = table.slice(2, 12).map((row) => row.split(/\s{2,}/).slice(0, 2));
      expect(health.slice(0, 2)).toEqual([
        ['failing', 'crm-db-failing'],
        ['stale', 'archive files'],
      ]);
      expect(health.slice(2).every(([h]) => h === 'healthy')).toBe(true);
      // Issue 29: --check judges droplets, volumes and resources too; the title names what it names.
      expect(lines).toContain(
        '# For cron or monitoring: status --check names crm-db-failing (failing), archive files (stale), droplet staging (stale) and volume uploads-fra1 (failing) (exit 9)',
      );
      expect(r.stdout).toContain('(exit 9)\n');
      expect(r.stderr).toMatch(/^error: status --check: 2 failing, 2 stale of 11 jobs and 9 droplets, volumes and snapshot resources$/m);

      // verify --latest: the good job's newest backup reads back, the corrupted one's does not, though status
      // calls both healthy; each title says what the table under it shows.
      const good = lines.findIndex((l) => l.startsWith('# Read the newest backup of marketing site back'));
      expect(lines[good]).toMatch(/^# Read the newest backup of marketing site back \(status calls it healthy\): 1 file, a zip of (\d+) entries, every CRC-32 checked: passed \(exit 0\)$/);
      const entries = /a zip of (\d+) entries/.exec(lines[good]!)![1]!;
      expect(lines[good + 1]).toBe('$ backupctl --profile demo verify "marketing site" --latest -o table');
      expect(lines[good + 3]).toMatch(new RegExp(`^verified\\s+[0-9a-f]{8}\\s+marketing-site-\\S+\\.zip\\s+zip\\s+[\\d.]+ KiB\\s+${entries}\\s`));
      expect(lines[good + 5]).toMatch(/^Backup [0-9a-f-]{36} \(created [^)]+\): passed, 1 file, /);
      const bad = lines.findIndex((l) => l.startsWith(`# Read the newest backup of ${CORRUPTED_DEMO_JOB} back`));
      expect(lines[bad]).toMatch(
        new RegExp(`^# Read the newest backup of ${CORRUPTED_DEMO_JOB} back \\(status calls it healthy\\): git-server-\\S+\\.tar\\.gz fails: gzip: CRC-32 mismatch \\(incorrect data check\\): the data is damaged \\(exit 11\\)$`),
      );
      expect(lines[bad + 3]).toMatch(/^failed\s+[0-9a-f]{8}\s+git-server-\S+\.tar\.gz\s+gzip\s.*gzip: CRC-32 mismatch/);
      expect(lines.slice(bad).find((l) => l.startsWith('Backup '))).toMatch(/: FAILED, 1 of 2 files failed, /);
      expect(lines.slice(bad)).toContain('(exit 11)');
      expect(r.stderr).toMatch(new RegExp(`^error: 1 of 2 files of job ${CORRUPTED_DEMO_JOB} failed verification$`, 'm'));
      // Issue 29: the mark of that verify is on the newest backup: status now calls the job failing, and says why.
      const after = lines.findIndex((l) => l.startsWith('# And status now? '));
      expect(lines[after]).toBe(`# And status now? 1 job: 1 failing: ${CORRUPTED_DEMO_JOB} (the verify of its newest backup failed)`);
      expect(lines[after + 1]).toBe(`$ backupctl --profile demo status --job "${CORRUPTED_DEMO_JOB}" -o table`);
      // The failed read is in the catalog too: anomalies does not judge it (unchecked).
      expect(lines.slice(after + 2, after + 6).join('\n')).toMatch(new RegExp(`^failing +${CORRUPTED_DEMO_JOB} .* failed just now +never +unchecked$`, 'm'));

      // restore-test: the PostgreSQL job (a real pg_dump file) into a private local PostgreSQL (CI installs it); the title says what the table shows.
      const restore = lines.findIndex((l) => l.startsWith('# Restore the newest backup of '));
      expect(lines[restore]).toMatch(
        /^# Restore the newest backup of api postgres: 4 tables and 550 rows restored into PostgreSQL [\d.]+ \(local\), every row counted; recovery time [\d.]+ s \(exit 0\)$/,
      );
      expect(lines[restore + 1]).toBe('$ backupctl --profile demo restore-test "api postgres" -o table');
      expect(lines.slice(restore).find((l) => l.startsWith('Backup '))).toMatch(/: restore test passed, .*recovery time [\d.]+ s$/);

      // The encrypted "shop mysql" (issue 29 §5): its key set once for the job, verify and restore-test decrypt on the way.
      const verifyShop = lines.indexOf('$ backupctl --profile demo verify "shop mysql" --latest -o table');
      expect(lines[verifyShop - 1]).toMatch(/^# Read the newest backup of shop mysql back: 1 file, a mysqldump dump with its end marker: passed \(exit 0\)$/);
      expect(lines[verifyShop + 2]).toMatch(/^verified\s+[0-9a-f]{8}\s+shop-mysql-\S+\.sql\.gz\s+mysqldump\.gz\s/);
      const restoreShop = lines.indexOf('$ backupctl --profile demo restore-test "shop mysql" -o table');
      expect(lines[restoreShop - 1]).toMatch(/^# Restore the newest backup of shop mysql: 5 tables and 550 rows restored into (MySQL|MariaDB) /);

      // The report step: its title, phrased from report --json, says what the table under it shows.
      const reportTitle = lines.find((l) => l.startsWith('# Did the schedules keep? '))!;
      expect(reportTitle).toMatch(/^# Did the schedules keep\? Over 30 days the 11 jobs expected \d+ runs: \d+ completed, 3 with errors, 7 failed/);
      const at = lines.indexOf(reportTitle);
      expect(lines[at + 1]).toBe('$ backupctl --profile demo report --since 30d -o table');
      const totals = lines[at + 3]!;
      expect(totals).toMatch(/^Jobs: 11 jobs, /);
      const figure = (re: RegExp, text: string) => Number(re.exec(text)?.[1]);
      expect(figure(/expected (\d+) runs/, reportTitle)).toBe(figure(/(\d+) expected runs/, totals));
      expect(figure(/: (\d+) completed/, reportTitle)).toBe(figure(/ (\d+) completed/, totals));
      expect(figure(/(\d+) missed/, reportTitle)).toBe(figure(/(\d+) missed/, totals));
      expect(/success (\S+)$/.exec(reportTitle)?.[1]).toBe(/success (\S+)$/.exec(totals)?.[1]);
      // The jobs it names as missing runs are those of the table's MISSED column, with their counts.
      const header = lines.indexOf('Jobs', at) + 1;
      const missedColumn = lines[header]!.split(/\s{2,}/).indexOf('MISSED');
      const missing = lines
        .slice(header + 1, header + 12) // the 11 jobs' rows
        .map((row) => row.split(/\s{2,}/))
        .filter((cells) => cells[missedColumn] !== '0')
        .map((cells) => `${cells[0]} ${cells[missedColumn]}`);
      // archive files' five missed runs (four while its newest is within the grace), and one or two of four others.
      expect(missing.length).toBeGreaterThanOrEqual(4);
      const named = /missed \(([^)]*)\)/.exec(reportTitle)![1]!;
      expect(named.split(/, | and /).sort()).toEqual(missing.sort());
      expect(lines).toContain('# The same report as one HTML file: charts, no network request, printable, with the restore testing evidence of the plan');
      // The bad-night jobs missed no run (made an hour before their first night) and the report shows their anomalies.
      // From 02:30 to 03:30 UTC tonight's run is expected and pending (its grace has not ended; the emulator's nights
      // stop an hour before now): 23 expected then.
      const reportRows = lines.slice(header + 1, header + 11);
      expect(reportRows.find((row) => row.startsWith('file share '))).toMatch(/ 2[23] +22 +0 +0 +0 .* 2 anomalous$/);
      expect(reportRows.find((row) => row.startsWith('crm postgres '))).toMatch(/ 2[23] +22 +0 +0 +0 .* 1 anomalous$/);

      // Issue 33 §4: anomalies names the bad nights and the last clean backup, and diff shows what changed from the
      // one to the other. The nights are at 02:30 UTC, the newest at least an hour before the tour (whatever the minute).
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const newest = [newestNight(started), newestNight(Date.now())];
      const nightOf = (back: number) => newest.map((n) => `${day(n - back * 86_400_000)} 02:30 UTC`);
      const ID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
      for (const [job, bad, signals] of [
        ['file share', 2, 'ransom-note, onion-address, high-entropy, new-extension, renamed and size'],
        ['crm postgres', 1, 'table-shrunk and size'],
      ] as const) {
        const at = lines.findIndex((l) => l.startsWith(`# Which backup of ${job} is clean? `));
        const title = new RegExp(`^# Which backup of ${job} is clean\\? ${bad} of 22 backups anomalous \\(${signals}\\); the last clean one: (${ID}) \\(exit 0\\)$`).exec(lines[at]!);
        expect(title, lines[at]).not.toBeNull();
        const clean = title![1]!;
        expect(lines[at + 1]).toBe(`$ backupctl --profile demo anomalies "${job}"`);
        expect(lines[at + 2]).toBe(`${job}: 22 backups judged, ${22 - bad} clean, ${bad} anomalous`);
        // The first bad night is the one after the last clean one; its line names it and the clean one.
        const firstBad = new RegExp(`^  (\\S+ \\S+ UTC)  (${ID})  ANOMALOUS$`).exec(lines[at + 3]!);
        expect(firstBad, lines[at + 3]).not.toBeNull();
        expect(nightOf(bad - 1)).toContain(firstBad![1]);
        const badId = firstBad![2]!;
        const block = lines.slice(at, lines.findIndex((l, i) => i > at + 1 && l.startsWith('# ')));
        expect(block).toContain(`    last clean     ${clean} (${/\((\S+ \S+ UTC)\)/.exec(block.find((l) => l.startsWith('    last clean'))!)![1]})`);
        expect(nightOf(bad)).toContain(/\((\S+ \S+ UTC)\)/.exec(block.find((l) => l.startsWith('    last clean'))!)![1]);
        expect(block.at(-2)).toMatch(new RegExp(`^  last clean backup: ${clean} \\(`));
        // diff <job> <last clean> <first bad>.
        const d = lines.indexOf(`$ backupctl --profile demo diff "${job}" ${clean} ${badId}`);
        expect(d, `diff of ${job}`).toBeGreaterThan(at);
        expect(lines[d - 1]).toMatch(new RegExp(`^# What changed from ${job}'s last clean backup to the first bad one: `));
        expect(lines[d + 1]).toMatch(new RegExp(`^comparing backup ${clean} \\(.+\\) to ${badId} \\(.+\\):$`));
      }
      const shareDiff = lines.findIndex((l) => l.startsWith('$ backupctl --profile demo diff "file share" '));
      expect(lines[shareDiff - 1]).toBe("# What changed from file share's last clean backup to the first bad one: 38 files added, 37 removed, 1 changed, 1 in mode or owner only");
      const shareLines = lines.slice(shareDiff + 1, lines.findIndex((l, i) => i > shareDiff && l.startsWith('# ')));
      expect(shareLines).toContain('+    README_RESTORE_FILES.txt');
      expect(shareLines.filter((l) => /^\+    docs\/.+\.(doc|xls)\.locked$/.test(l))).toHaveLength(36);
      const crmDiff = lines.findIndex((l) => l.startsWith('$ backupctl --profile demo diff "crm postgres" '));
      expect(lines[crmDiff - 1]).toMatch(/^# What changed from crm postgres's last clean backup to the first bad one: .*public\.orders \d+ -> 85 rows$/);
      // status shows them as warnings of the two jobs.
      const st = lines.indexOf('$ backupctl --profile demo status --job "file share" --job "crm postgres" -o table');
      expect(lines[st - 1]).toBe(
        '# And status? crm postgres: 1 of 22 backups anomalous, a warning (--check --strict fails on it); file share: 2 of 22 backups anomalous, a warning (--check --strict fails on it)',
      );
      expect(lines.slice(st).find((l) => l.startsWith('warning: file share: '))).toMatch(/^warning: file share: 2 backups with anomalies not acknowledged .*; the first one's last clean backup [0-9a-f-]{36} /);

      // Issue 44: an assurance plan's restore test of crm postgres (its newest night lost 90% of its orders) checks two
      // SQL assertions in the restored data: the customers one holds, the orders one fails; the evidence says which.
      const assure = lines.indexOf('$ backupctl --profile demo assure run -f assurance.yaml');
      expect(assure, r.stdout.slice(-3000)).toBeGreaterThan(0);
      expect(lines.slice(assure - 12, assure)).toContain('      - sql: "SELECT count(*) FROM public.orders"');
      expect(lines[assure + 1]).toMatch(new RegExp(`^restore-test\tcrm postgres\t(${ID})\tfailed$`));
      const tested = lines[assure + 1]!.split('\t')[2]!;
      expect(lines[assure + 2]).toBe('(exit 9)');
      expect(r.stderr).toMatch(/^error: 1 test failed: restore-test "crm postgres"$/m);
      const evidence = lines.findIndex((l) => l.startsWith('# Restore testing evidence: '));
      const made = /\(made (\S+ \S+ UTC)\)/.exec(lines[evidence]!)?.[1];
      expect([newestNight(started), newestNight(Date.now())].map((n) => `${day(n)} 02:30 UTC`)).toContain(made);
      expect(lines[evidence]).toBe(
        `# Restore testing evidence: crm postgres, restore test of backup ${tested.slice(0, 8)} (made ${made}): ` +
          'held `SELECT count(*) FROM public.customers > 0`; FAILED `SELECT count(*) FROM public.orders >= 500`: not covered',
      );
      expect(lines[evidence + 1]).toBe('$ backupctl --profile demo assure status -f assurance.yaml -o table');
      expect(lines[evidence + 3]).toMatch(/^crm postgres\s+restore-test\s+7d\s+failing\s+\S+ \(failed\)\s*$/);

      // Issue 25 §11: off a terminal the tour says the emulator stops, never "Ctrl-C to stop", and keeps the
      // HTML report whose path it printed.
      expect(r.stderr).not.toContain('Ctrl-C');
      expect(r.stdout).not.toContain('Ctrl-C');
      expect(r.stdout).toContain('Not on a terminal (or CI is set), so the emulator stops now, with the tour.');
      // Issue 42.12: the restart hint starts the same data (the bad-night jobs too); the tour says its state was its own.
      expect(r.stdout).toMatch(/^or start it again yourself: node bin\/backupctl\.cjs emulator --port \d+ --token \S+ --bad-night$/m);
      expect(r.stdout).toMatch(/^The tour kept its marks and catalog in a state folder of its own \(.+, removed now\): your own status and anomalies start without them\.$/m);
      const kept = /^The HTML report stays at (.+)$/m.exec(r.stdout)?.[1];
      expect(kept?.startsWith(tmp)).toBe(true);
      expect(r.stdout).toContain(`Open it in a browser: file://${kept}`);
      expect(existsSync(kept!)).toBe(true);
      expect(readFileSync(kept!, 'utf8')).toMatch(/^<!DOCTYPE html>/i);
      expect(readFileSync(kept!, 'utf8')).toContain('<tr data-job="crm postgres" data-test="restore_test" data-covered="false">');

      // auth status as a person reads it (labels, the token masked), not raw tsv.
      const who = lines.indexOf('$ backupctl --profile demo auth status -o table');
      expect(who).toBeGreaterThan(0);
      expect(lines[who + 1]).toMatch(/^Profile:\s+demo$/);
      expect(lines.slice(who + 1, who + 7).join('\n')).toMatch(/^Token:\s+\*{4}\w{0,4}$/m);
      // The backups as a table: no giant JSON line, no encryption key, no signed URL.
      const list = lines.findIndex((l) => /^\$ backupctl --profile demo jobs backup list /.test(l));
      expect(lines[list]).toMatch(/ -o table$/);
      expect(lines[list + 1]).toMatch(/^ID\s+Status\s/);
      expect(r.stdout).not.toMatch(/encryption_key|X-Amz-Signature|Signature=/);
      const listed = lines.slice(list + 1, lines.findIndex((l, i) => i > list && l.startsWith('# ')));
      expect(listed.length).toBeGreaterThan(2);
      expect(Math.max(...listed.map((l) => l.length))).toBeLessThan(200);
    } finally {
      cfg.cleanup();
      rmSync(state, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 210_000);

  it('on a terminal, keeps the emulator running until Ctrl-C, says so once, and keeps the report', async () => {
    const cfg = tempConfigDir();
    const state = mkdtempSync(path.join(tmpdir(), 'backupctl-demo-state-'));
    const tmp = mkdtempSync(path.join(tmpdir(), 'backupctl-demo-tmp-'));
    try {
      const env = cleanEnv({ CI: undefined, TERM: 'xterm-256color', DEMO_PORT: '0', BACKUPCTL_CONFIG_DIR: cfg.dir, XDG_STATE_HOME: state, TMPDIR: tmp });
      const child = spawn('script', ['-qec', `exec '${process.execPath}' '${DEMO}'`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let output = '';
      let pressed = false;
      const onData = (d: Buffer) => {
        output += d.toString('utf8');
        if (!pressed && output.includes('Press Ctrl-C here')) {
          pressed = true;
          setTimeout(() => child.stdin.write('\x03'), 300);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      const timer = setTimeout(() => child.kill('SIGKILL'), 200_000);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearTimeout(timer);
      const text = output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
      expect(pressed, text.slice(-2000)).toBe(true);
      expect(code).toBe(0);
      expect(text).toContain('The emulator is still running.');
      // The emulator's own "Emulator running; Ctrl-C to stop" line is the tour's to say, once.
      expect(text).not.toContain('Emulator running; Ctrl-C to stop');
      expect(text).not.toContain('npx backupctl');
      const kept = /^The HTML report stays at (.+)$/m.exec(text)?.[1]?.trim();
      expect(kept?.startsWith(tmp)).toBe(true);
      expect(existsSync(kept!)).toBe(true);
    } finally {
      cfg.cleanup();
      rmSync(state, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 210_000);
});
