// Issue 33 §2: "the status line and the report show anomalies". Through the built CLI
// against the emulator's bad night (--bad-night): once the catalog holds the backups of
// "file share" (two ransomware nights after 20 clean ones) and "crm postgres" (the newest
// dump lost 90% of its orders), status and report show, per job, the anomalous backups and
// the last clean one, judged by the model `anomalies` uses; an acknowledged one is shown as
// acknowledged; status --check counts an unacknowledged one as a warning (--strict: exit 9);
// -o prometheus has anomalies' series. Before this, status and report said nothing of them.
import { beforeAll, describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';
import { inPty, screenLines } from '../helpers/pty.js';
import { displayWidth } from '../../src/output/format.js';

type Json = any;

const { env, cli, backupsOf } = emulatorSession({ seed: 'demo', badNight: true, now: Date.now(), timeoutMs: 90_000 });

/** The backups of a job, oldest first. */
async function nights(job: string): Promise<Array<{ id: string; created_at: string }>> {
  return (await backupsOf(job)).sort((a, b) => a.created_at.localeCompare(b.created_at));
}

let share: Array<{ id: string; created_at: string }>;
let crm: Array<{ id: string; created_at: string }>;

beforeAll(async () => {
  share = await nights('file share');
  crm = await nights('crm postgres');
});

const jobOf = (doc: Json, name: string) => doc.jobs.find((j: Json) => j.name === name);

describe('status and report show anomalies', () => {
  it('show nothing of a job whose backups the catalog does not hold (status and report read no backup)', async () => {
    const r = await cli(['status', '--job', 'file share', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(jobOf(JSON.parse(r.stdout), 'file share').anomalies).toBeNull();
    const check = await cli(['status', '--job', 'file share', '--check', '--strict']);
    expect(check.code, check.stderr).toBe(0);
  });

  it('status names the ransomware nights and the last clean backup, in --json, the table, --check and -o prometheus', async () => {
    for (const job of ['file share', 'crm postgres']) {
      const scan = await cli(['scan', job]);
      expect(scan.code, scan.stderr).toBe(0);
    }
    const r = await cli(['status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    const fs = jobOf(doc, 'file share');
    expect(fs.anomalies).toMatchObject({ judged: 22, anomalous: 2, acknowledged: 0, newest: { backup_id: share[21]!.id, verdict: 'anomalous' }, last_clean: { id: share[19]!.id } });
    expect(fs.anomalies.backups.map((b: Json) => b.backup_id)).toEqual([share[20]!.id, share[21]!.id]);
    expect(fs.anomalies.backups[0].last_clean.id).toBe(share[19]!.id);
    expect(fs.anomalies.backups[1].findings.map((f: Json) => f.signal)).toEqual(expect.arrayContaining(['ransom-note', 'onion-address', 'high-entropy', 'renamed']));
    // A warning, as an unchecked mark is: the health is still what the runs say.
    expect(fs.health).toBe('healthy');
    const warning = fs.warnings.find((w: Json) => w.kind === 'anomaly');
    expect(warning.text).toContain(`last clean backup ${share[19]!.id}`);
    const crmJob = jobOf(doc, 'crm postgres');
    expect(crmJob.anomalies).toMatchObject({ anomalous: 1, last_clean: { id: crm[20]!.id } });
    expect(crmJob.anomalies.backups[0].findings.map((f: Json) => f.signal)).toContain('table-shrunk');
    // Jobs the catalog knows nothing of have none (not "clean").
    expect(jobOf(doc, 'shop mysql').anomalies).toBeNull();

    const table = await cli(['status', '--job', 'file share', '-o', 'table']);
    expect(table.stdout).toMatch(/^healthy +file share .* 2 anomalous$/m);
    expect(table.stdout).toMatch(new RegExp(`^warning: file share: 2 backups with anomalies not acknowledged \\(newest ${share[21]!.id}, .*: ransom-note, .*last clean backup ${share[19]!.id} `, 'm'));

    // --check: a warning on stderr, exit 0; with --strict, exit 9 (status --check's code) naming it.
    const check = await cli(['status', '--job', 'file share', '--check']);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toContain(`file share: 2 backups with anomalies not acknowledged`);
    expect(check.stderr).toContain('(status --check --strict fails on it)');
    const strict = await cli(['status', '--job', 'file share', '--check', '--strict', '-q']);
    expect(strict.code).toBe(9);
    expect(strict.stdout.trim()).toBe(fs.id);
    expect(strict.stderr).toContain(`last clean backup ${share[19]!.id}`);

    // The series and labels of `anomalies -o prometheus`: job_id and job_name, as every job series (issue 42.13).
    const prom = await cli(['status', '--job', 'file share', '-o', 'prometheus']);
    expect(prom.stdout).toContain(`backupctl_anomalous_backups{job_id="${fs.id}",job_name="file share"} 2\n`);
    expect(prom.stdout).toContain(`backupctl_anomaly_findings{job_id="${fs.id}",job_name="file share",signal="ransom-note"} 1\n`);
    expect(prom.stdout).not.toMatch(/\{job="/);
    expect(prom.stdout).toContain(`backupctl_last_clean_backup_timestamp_seconds{job_id="${fs.id}",job_name="file share"} ${Math.floor(Date.parse(share[19]!.created_at) / 1000)}\n`);
    const own = await cli(['anomalies', 'file share', '--offline', '-o', 'prometheus']);
    const series = (text: string) => text.split('\n').filter((l) => /^backupctl_(anomal|last_clean)/.test(l));
    expect(series(prom.stdout)).toEqual(series(own.stdout));
  });

  it('report shows them in the table, Markdown, HTML and JSON', async () => {
    const json = await cli(['report', '--since', '30d', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    const fs = jobOf(doc, 'file share');
    expect(fs.anomalies).toMatchObject({ anomalous: 2, last_clean: { id: share[19]!.id } });
    expect(fs.anomalies.backups.map((b: Json) => b.backup_id)).toEqual([share[20]!.id, share[21]!.id]);
    // The bad-night jobs were made an hour before their first night: no missed run (from 02:30 to 03:30 UTC
    // tonight's run is expected and pending: the emulator's nights stop an hour before now).
    expect(fs).toMatchObject({ completed: 22, missed: 0 });
    expect(fs.expected - fs.pending).toBe(22);
    expect(jobOf(doc, 'crm postgres').anomalies.backups[0].backup_id).toBe(crm[21]!.id);
    // A window that ends before the bad nights shows none of them.
    const before = await cli(['report', '--since', '30d', '--until', new Date(Date.parse(share[20]!.created_at) - 60_000).toISOString(), '--job', 'file share', '--json']);
    expect(jobOf(JSON.parse(before.stdout), 'file share').anomalies).toMatchObject({ anomalous: 0, last_clean: { id: share[19]!.id } });

    const text = await cli(['report', '--since', '30d', '--job', 'file share', '-o', 'table']);
    expect(text.stdout).toMatch(/^NAME .* ANOMALIES$/m);
    expect(text.stdout).toMatch(/^file share .* 2 anomalous$/m);
    expect(text.stdout).toContain(`  file share: 2 backups with anomalies not acknowledged (newest ${share[21]!.id}`);
    expect(text.stdout).toContain(`last clean backup ${share[19]!.id}`);
    const md = await cli(['report', '--since', '30d', '--job', 'file share', '-o', 'md']);
    expect(md.stdout).toMatch(/\| Anomalies \|\n/);
    expect(md.stdout).toMatch(/\| 2 anomalous \|\n/);
    expect(md.stdout).toContain(`last clean backup ${share[19]!.id}`);
    const html = await cli(['report', '--since', '30d', '-o', 'html']);
    expect(html.stdout).toContain('<th class="text">Anomalies</th>');
    expect(html.stdout).toContain('<td class="text bad">2 anomalous</td>');
    expect(html.stdout).toMatch(new RegExp(`<li class="anomaly"><b>file share</b>: 2 backups with anomalies not acknowledged \\(newest ${share[21]!.id}, .*last clean backup ${share[19]!.id}`));
  });

  it('at 60 and 200 columns, status and report fit the terminal and cut no id', async () => {
    for (const cols of [60, 200]) {
      for (const args of [['status'], ['report', '--since', '30d']]) {
        const r = await inPty(args, env(), { stty: `cols ${cols} rows 100` });
        expect(r.code, r.output).toBe(0);
        const lines = screenLines(r.output);
        expect(lines.filter((l) => displayWidth(l) > cols), `${args.join(' ')} at ${cols}`).toEqual([]);
        for (const line of lines) expect(line).not.toMatch(/\b[0-9a-f]{8}-[0-9a-f-]{0,26}…/);
        // The last clean backup of file share is named whole, whatever the width.
        expect(lines.join(' ')).toContain(share[19]!.id);
      }
    }
  });

  it('after anomalies --ack, shows the night as acknowledged, not as a problem', async () => {
    const ack = await cli(['anomalies', 'crm postgres', '--ack', crm[21]!.id, '--note', 'orders archived by design']);
    expect(ack.code, ack.stderr).toBe(0);
    const r = await cli(['status', '--job', 'crm postgres', '--json']);
    const job = jobOf(JSON.parse(r.stdout), 'crm postgres');
    expect(job.anomalies).toMatchObject({ anomalous: 0, acknowledged: 1, last_clean: { id: crm[21]!.id } });
    expect(job.anomalies.backups[0]).toMatchObject({ backup_id: crm[21]!.id, verdict: 'acknowledged', ack: { note: 'orders archived by design' } });
    expect(job.warnings.filter((w: Json) => w.kind === 'anomaly')).toEqual([]);
    const strict = await cli(['status', '--job', 'crm postgres', '--check', '--strict']);
    expect(strict.code, strict.stderr).toBe(0);
    const table = await cli(['status', '--job', 'crm postgres', '-o', 'table']);
    expect(table.stdout).toMatch(/^healthy +crm postgres .* 1 acknowledged$/m);
    expect(table.stdout).toMatch(new RegExp(`^acknowledged: crm postgres: backup ${crm[21]!.id} \\(.*\\) acknowledged .*: orders archived by design \\(table-shrunk`, 'm'));
    expect(table.stdout).not.toMatch(/^warning: crm postgres/m);
    const report = await cli(['report', '--since', '30d', '--job', 'crm postgres', '-o', 'table']);
    expect(report.stdout).toMatch(/^crm postgres .* 1 acknowledged$/m);
    expect(report.stdout).toContain(`  crm postgres: backup ${crm[21]!.id}`);
    expect(report.stdout).not.toContain('with anomalies not acknowledged');
    const rj = JSON.parse((await cli(['report', '--since', '30d', '--job', 'crm postgres', '--json'])).stdout);
    expect(jobOf(rj, 'crm postgres').anomalies).toMatchObject({ anomalous: 0, acknowledged: 1 });
    const html = await cli(['report', '--since', '30d', '--job', 'crm postgres', '-o', 'html']);
    expect(html.stdout).toContain('<li class="acknowledged"><b>crm postgres</b>: backup');
  });
});
