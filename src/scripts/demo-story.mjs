// The demo tour's commentary, phrased from what `status --json` returned, so
// the words can never drift from what the tour shows (src/scripts/demo.mjs).

/** `a`, `a and b`, `a, b and c`. */
function list(items) {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Whole days, else hours, else minutes: "5 days", "7 hours", "12 minutes". */
export function ageWords(seconds) {
  if (seconds >= 2 * 86_400) return plural(Math.floor(seconds / 86_400), 'day');
  if (seconds >= 2 * 3_600) return plural(Math.floor(seconds / 3_600), 'hour');
  return plural(Math.max(1, Math.floor(seconds / 60)), 'minute');
}

/** Why a job has its health, from what status --json said of it (its runs, or the marks of its newest backup). */
function why(job) {
  const name = job.name ?? job.id;
  if (job.health === 'failing') {
    const marks = [['verify', 'verify'], ['restore_test', 'restore test']].filter(([k]) => job[k]?.of_newest && job[k].state === 'failed');
    if (marks.length) return `${name} (the ${list(marks.map(([, w]) => w))} of its newest backup failed)`;
    const runs = job.recent.findIndex((s) => s !== 'failed' && s !== 'expired' && s !== 'completed_with_errors');
    const n = runs === -1 ? job.recent.length : runs;
    return `${name} (its last ${n === 1 ? 'run' : `${n} runs`} ${job.newest?.status === 'expired' ? 'expired' : 'failed'})`;
  }
  if (job.health === 'stale') {
    const age = job.last_completed?.age_seconds;
    return `${name} (${age == null ? 'no completed backup' : `newest completed backup ${ageWords(age)} old`})`;
  }
  return name;
}

/**
 * The title of the status step: "8 jobs: 1 failing: crm-db-failing (its last 3 runs failed);
 * 1 stale: archive files (newest completed backup 5 days old); 6 healthy".
 */
export function statusStory(doc) {
  const parts = [];
  for (const health of ['failing', 'stale', 'unknown', 'healthy']) {
    const jobs = doc.jobs.filter((j) => j.health === health);
    if (!jobs.length) continue;
    parts.push(health === 'healthy' ? `${jobs.length} healthy` : `${jobs.length} ${health}: ${list(jobs.map(why))}`);
  }
  return `${plural(doc.jobs.length, 'job')}: ${parts.join('; ')}`;
}

/** The droplets, volumes and snapshot resources of the document, each with its kind and name. */
function snapshotted(doc) {
  return [
    ...(doc.droplets ?? []).map((m) => ({ ...m, label: `droplet ${m.name ?? m.id}` })),
    ...(doc.volumes ?? []).map((m) => ({ ...m, label: `volume ${m.name ?? m.id}` })),
    ...(doc.resources ?? []).map((r) => ({ ...r, label: `snapshot resource ${r.last_known_ip ?? r.id}` })),
  ];
}

/** What status --check refuses, as it judges: failing or stale jobs, droplets, volumes and resources. */
export function checkRefuses(doc) {
  return [...doc.jobs.map((j) => ({ ...j, label: j.name ?? j.id })), ...snapshotted(doc)].filter((t) => t.health === 'failing' || t.health === 'stale');
}

/** The title of the `status --check` step: what it names, and the exit code it gives. */
export function checkStory(doc) {
  const bad = checkRefuses(doc);
  if (!bad.length) return 'status --check: nothing failing or stale (exit 0)';
  return `status --check names ${list(bad.map((t) => `${t.label} (${t.health})`))} (exit 9)`;
}

/** What verify checked in a file that passed: "a zip of 41 entries, every CRC-32 checked". */
function checkedWords(file) {
  const entries = file.entries == null ? '' : ` of ${plural(file.entries, 'entry', 'entries')}`;
  if (file.format === 'zip') return `a zip${entries}, every CRC-32 checked`;
  if (file.format === 'tar' || file.format === 'tar.gz') return `a ${file.format}${entries}, every header checked`;
  if (/^(pg_dump|mysqldump)/.test(file.format)) return `a ${file.format.replace(/\.gz$/, '')} dump with its end marker`;
  if (file.format === 'gzip') return 'gzip, decompressed whole';
  return `${file.name}: ${file.reasons[0] ?? 'size and hash only'}`;
}

/**
 * The title of a `verify --latest` step, from what `verify --json` returned for it, and the job's
 * health as status judged it: "Read the newest backup of marketing site back: 1 file, a zip of 41
 * entries, every CRC-32 checked: verified (exit 0)"; "... of git server back (status calls it healthy):
 * git-server-….tar.gz fails: gzip: CRC-32 mismatch (...) (exit 11)".
 */
export function verifyStory(doc, health) {
  const name = doc.job.name ?? doc.job.id;
  const files = doc.backups.flatMap((b) => b.files);
  const opening = `Read the newest backup of ${name} back${health ? ` (status calls it ${health})` : ''}: `;
  if (doc.verdict === 'failed') {
    const failed = files.filter((f) => f.verdict === 'failed').map((f) => `${f.name} fails: ${f.reasons.join('; ')}`);
    return `${opening}${list(failed)} (exit 11)`;
  }
  if (doc.verdict === 'not-tested') {
    const code = files.find((f) => f.verdict === 'not-tested')?.exit_code ?? 6;
    return `${opening}it could not be read: not-tested (exit ${code})`;
  }
  return `${opening}${plural(files.length, 'file')}, ${list(files.map(checkedWords))}: ${doc.verdict} (exit 0)`;
}

/** "archive files 5, api postgres 2 and shop mysql 1": the entries with some of `key`, most first. */
function countsByName(entries, key) {
  const some = entries.filter((e) => e[key] > 0).sort((a, b) => b[key] - a[key] || String(a.name).localeCompare(String(b.name)));
  return list(some.map((e) => `${e.name ?? e.id} ${e[key]}`));
}

/**
 * The title of the report step, from `report --json`: "Over 30 days the 8 jobs expected 330 runs: 310
 * completed, 3 with errors, 7 failed and 10 missed (archive files 5, api postgres 2, ...); success 93.9%".
 */
export function reportStory(doc) {
  const t = doc.summary.jobs;
  const days = Math.round((Date.parse(doc.window.until) - Date.parse(doc.window.since)) / 86_400_000);
  const parts = [`${t.completed} completed`];
  if (t.completed_with_errors) parts.push(`${t.completed_with_errors} with errors`);
  if (t.failed) parts.push(`${t.failed} failed`);
  if (t.expired) parts.push(`${t.expired} expired`);
  parts.push(t.missed ? `${t.missed} missed (${countsByName(doc.jobs, 'missed')})` : 'none missed');
  const open = t.pending + t.in_progress;
  if (open) parts.push(`${open} not judged yet`);
  const rate = t.success_rate === null ? '' : `; success ${(t.success_rate * 100).toFixed(1)}%`;
  return `Over ${plural(days, 'day')} the ${plural(t.entries, 'job')} expected ${plural(t.expected, 'run')}: ${list(parts)}${rate}`;
}

/** "1.23 s" */
const secondsWords = (s) => `${s.toFixed(2)} s`;

/**
 * The title of the restore-test step, from `restore-test --json`: "Restore the newest backup of api
 * postgres: 3 tables and 412 rows restored into PostgreSQL 16.4 (local), every row counted; recovery
 * time 2.10 s (exit 0)"; for a file archive: "... of archive files: 40 files extracted and --exec `test
 * -d data` passed; recovery time 0.31 s (exit 0)".
 */
export function restoreStory(doc) {
  const name = doc.job.name ?? doc.job.id;
  const b = doc.backups[0];
  const opening = `Restore the newest backup of ${name}: `;
  if (!b) return `${opening}nothing to restore`;
  if (doc.verdict === 'failed') return `${opening}it fails: ${b.reason ?? 'nothing restored'} (exit 14)`;
  if (doc.verdict === 'not-tested' || doc.verdict === 'unchecked') return `${opening}${doc.verdict}: ${b.reason ?? 'nothing restored'}`;
  const done = b.files.filter((f) => f.verdict === 'restored' || f.verdict === 'extracted' || f.verdict === 'structure-checked');
  const words = done.map((f) => {
    if (f.verdict === 'extracted') return `${plural(f.files ?? 0, 'file')} extracted${f.exec ? ` and --exec \`${f.exec.command}\` passed` : ''}`;
    if (f.verdict === 'structure-checked') return `${plural(f.tables.length, 'collection')} and ${plural(f.rows, 'document')} parsed (structure checked, not restored)`;
    const engine = f.engine ? ` into ${f.engine.product}${f.engine.version ? ` ${f.engine.version}` : ''} (${f.engine.runs})` : '';
    return `${plural(f.tables.length, 'table')} and ${plural(f.rows, 'row')} restored${engine}, every row counted`;
  });
  // A recovery time only where data was restored (structure-only has none).
  const time = doc.verdict === 'passed' ? `recovery time ${secondsWords(b.total_seconds)}` : `${doc.verdict}, no recovery time`;
  return `${opening}${list(words)}; ${time} (exit 0)`;
}

/**
 * The title of an `anomalies <job>` step, from `anomalies --json`: "Which backup of file share is clean?
 * 2 of 22 backups anomalous (ransom-note, onion-address, ...); the last clean one: <id> (exit 0)".
 */
export function anomaliesStory(doc) {
  const j = doc.jobs[0];
  const name = j.job.name ?? j.job.id;
  const bad = j.backups.filter((b) => b.verdict === 'anomalous');
  const opening = `Which backup of ${name} is clean? `;
  if (!bad.length) return `${opening}all ${plural(j.backups.length, 'backup')} judged are (exit 0)`;
  const signals = [...new Set(bad.flatMap((b) => b.findings.map((f) => f.signal)))];
  const clean = bad[0].last_clean;
  return `${opening}${bad.length} of ${plural(j.backups.length, 'backup')} anomalous (${list(signals)}); the last clean one: ${clean ? clean.id : 'none'} (exit 0)`;
}

/**
 * The title of a `diff <job> <clean> <bad>` step, from `diff --json`: "What changed from file share's last
 * clean backup to the first bad one: 38 files added, 37 removed, 1 changed, 1 in mode only"; between two
 * dumps, the tables' rows.
 */
export function diffStory(doc, name) {
  const opening = `What changed from ${name}'s last clean backup to the first bad one: `;
  if (doc.tables?.length) {
    const words = doc.tables.map((t) => (t.change === '+' ? `${t.table} added` : t.change === '-' ? `${t.table} dropped` : `${t.table} ${t.rows_before} -> ${t.rows_after} rows`));
    return `${opening}${list(words)}`;
  }
  const f = doc.files;
  return `${opening}${plural(f.added, 'file')} added, ${f.removed} removed, ${f.changed} changed, ${f.metadata} in mode or owner only`;
}

/** The title of the status step after anomalies: "And status? file share: 2 of 22 backups anomalous, the last clean one <id>". */
export function statusAnomaliesStory(doc) {
  const parts = doc.jobs.map((j) => {
    const a = j.anomalies;
    if (!a) return `${j.name ?? j.id}: nothing in the catalog`;
    if (!a.anomalous) return `${j.name ?? j.id}: ${plural(a.judged, 'backup')} judged, none anomalous`;
    return `${j.name ?? j.id}: ${a.anomalous} of ${plural(a.judged, 'backup')} anomalous, a warning (--check --strict fails on it)`;
  });
  return `And status? ${parts.join('; ')}`;
}

/**
 * The title of the assurance step, from the evidence of `report --assurance --json`: "Restore testing evidence:
 * crm postgres, restore test of backup 1a2b3c4d (made 2026-05-01 02:30 UTC): held `SELECT ... > 0`; FAILED
 * `SELECT ... >= 500`: not covered".
 */
export function assuranceStory(ev) {
  const parts = ev.jobs.flatMap((j) =>
    j.tests.map((t) => {
      const what = t.kind === 'verify' ? 'verify' : 'restore test';
      if (!t.backup_id) return `${j.job}: ${t.why}`;
      const checks = t.assertions.map((a) => `${a.held === true ? 'held' : a.held === false ? 'FAILED' : 'not run'} \`${a.validation}\``);
      return `${j.job}, ${what} of backup ${t.backup_id.slice(0, 8)} (made ${t.backup_created_at ? `${t.backup_created_at.slice(0, 16).replace('T', ' ')} UTC` : 'when unknown'}): ${checks.length ? checks.join('; ') : t.result}: ${t.covered ? 'covered' : 'not covered'}`;
    }),
  );
  return `Restore testing evidence: ${parts.join('. ')}`;
}
