// Predictions checked against what the service did. Every `retention` run
// records, per job / droplet / volume / resource, which backups it predicted
// to go at which run (retention-predictions.json in the state folder);
// `retention --audit` counts the runs the service has made since, and says of
// each prediction whether it held: a backup predicted to go by now is expired
// or gone, one predicted to stay is still there.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { ForecastDocument } from './document.js';
import type { TargetBackup } from './collect.js';

export const PREDICTIONS_FILE = 'retention-predictions.json';
/** Records kept per target (the newest). */
const KEEP = 20;

export interface Prediction {
  id: string;
  created_at: string;
  /** 1 = goes at the next run; null = not within the forecast. */
  expires_run: number | null;
  expires_at: string | null;
}

export interface PredictionRecord {
  recorded_at: string;
  counts_from: 'service' | 'what-if';
  predictions: Prediction[];
}

interface PredictionData {
  version: 1;
  targets: Record<string, PredictionRecord[]>;
}

/**
 * A target's records, per service (issue 42 §10): `<service key> <kind>:<id>`, the service key the
 * marks use (src/state/marks.ts serviceKey: base URL and account), so two profiles never mix. A file
 * written before kept `<kind>:<id>` alone: read as a fallback while this service has no record of its own.
 */
export const targetKey = (doc: Pick<ForecastDocument, 'target'>, service?: string) => `${service ? `${service} ` : ''}${doc.target.kind}:${doc.target.id}`;

/** The records of a target for this service, else (an older file) the ones kept without a service. */
export function recordsOf(records: Record<string, PredictionRecord[]>, doc: Pick<ForecastDocument, 'target'>, service: string): PredictionRecord[] {
  return records[targetKey(doc, service)] ?? records[targetKey(doc)] ?? [];
}

async function read(file: string): Promise<PredictionData> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, targets: {} };
    throw new ConfigError(`cannot read the retention predictions ${file}: ${(err as Error).message}`);
  }
  try {
    const data = JSON.parse(text) as Partial<PredictionData>;
    if (data.version !== 1 || !data.targets || typeof data.targets !== 'object') throw new Error('not a file of version 1');
    return { version: 1, targets: data.targets };
  } catch (err) {
    throw new ConfigError(`the retention predictions ${file} are broken (${(err as Error).message}); they were left as they are`, [
      '  Move the file aside to start recording again.',
    ]);
  }
}

/** Where the predictions are kept: the state folder, or the PostgreSQL state the team shares (src/state/open.ts). */
export interface PredictionsWhere {
  dir: string;
  url?: string;
  timeoutMs?: number;
}

/** The records of this service (keyed as targetKey), and in a folder also those kept without a service by older versions. */
export async function readPredictions(where: PredictionsWhere, service: string): Promise<Record<string, PredictionRecord[]>> {
  if (!where.url) return (await read(path.join(where.dir, PREDICTIONS_FILE))).targets;
  const { readPgPredictions } = await import('../state/pg-predictions.js');
  const out: Record<string, PredictionRecord[]> = {};
  for (const r of await readPgPredictions(where.url, service, where.timeoutMs)) (out[`${r.service} ${r.target}`] ??= []).push(r.record as PredictionRecord);
  return out;
}

/** A record as the state database keeps it: service, target (`<kind>:<id>`), recorded_at. */
export interface PredictionRow {
  service: string;
  target: string;
  recorded_at: string;
  record: PredictionRecord;
}

/** A service key ends with ` account:<16 hex digits>` or ` account:no-token` (src/state/marks.ts serviceKey). */
const SERVICE_TARGET = /^(.* account:(?:[0-9a-f]{16}|no-token)) (\S+:.*)$/;

/** Every record of a state folder that names its service (state migrate; those of older versions name none and stay). */
export async function readFolderPredictions(dir: string): Promise<PredictionRow[]> {
  const out: PredictionRow[] = [];
  for (const [key, records] of Object.entries((await read(path.join(dir, PREDICTIONS_FILE))).targets)) {
    const m = SERVICE_TARGET.exec(key);
    if (!m || !Array.isArray(records)) continue;
    for (const record of records) if (record && typeof record.recorded_at === 'string') out.push({ service: m[1]!, target: m[2]!, recorded_at: record.recorded_at, record });
  }
  return out;
}

/** Adds records to a state folder's file under its lock (a record of the same target and time is there already: skipped), the newest KEEP kept. */
export async function writeFolderPredictions(dir: string, rows: readonly PredictionRow[]): Promise<number> {
  await update(dir, (data) => {
    for (const r of rows) {
      const key = `${r.service} ${r.target}`;
      const list = data.targets[key] ?? [];
      if (!list.some((x) => x.recorded_at === r.recorded_at)) list.push(r.record);
      data.targets[key] = list.sort((a, b) => a.recorded_at.localeCompare(b.recorded_at)).slice(-KEEP);
    }
  });
  return rows.length;
}

async function update(stateDir: string, fn: (data: PredictionData) => void): Promise<void> {
  const file = path.join(stateDir, PREDICTIONS_FILE);
  await mkdir(stateDir, { recursive: true, mode: 0o700 }).catch((err: Error) => {
    throw new ConfigError(`cannot create the state folder ${stateDir}: ${err.message}`);
  });
  const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
  await withFileLock(file, async () => {
    const data = await read(file);
    fn(data);
    await writeFileAtomic(file, `${JSON.stringify(data, null, 1)}\n`, {
      mode: 0o600,
      failure: (err) => new ConfigError(`cannot write the retention predictions ${file}: ${err.message}`),
    });
  });
}

/** Adds this run's predictions (service counts only: a what-if predicts nothing the service will do). */
export async function recordPredictions(where: PredictionsWhere, docs: readonly ForecastDocument[], service: string): Promise<void> {
  const real = docs.filter((d) => d.inputs.counts_from === 'service');
  if (!real.length) return;
  const rows: PredictionRow[] = real.map((doc) => ({
    service,
    target: targetKey(doc),
    recorded_at: doc.generated_at,
    record: {
      recorded_at: doc.generated_at,
      counts_from: doc.inputs.counts_from,
      predictions: doc.backups
        .filter((b) => b.action !== 'not-counted')
        .map((b) => ({ id: b.id, created_at: b.created_at, expires_run: b.expires_run, expires_at: b.expires_at })),
    },
  }));
  if (where.url) {
    const { writePgPredictions } = await import('../state/pg-predictions.js');
    await writePgPredictions(where.url, rows, KEEP, where.timeoutMs);
    return;
  }
  await update(where.dir, (data) => {
    for (const r of rows) {
      const key = `${r.service} ${r.target}`;
      data.targets[key] = [...(data.targets[key] ?? []), r.record].slice(-KEEP);
    }
  });
}

export interface AuditResult {
  target: ForecastDocument['target'];
  recorded_at: string | null;
  /** Runs the service made since the record: backups created after it that are not manual and did not fail. */
  runs_since: number;
  predictions: number;
  held: number;
  wrong: Array<{ id: string; predicted: string; actual: 'expired' | 'gone' | 'still there' }>;
  message: string;
}

const RUN_STATUSES = new Set(['completed', 'completed_with_errors', 'expired']);

/**
 * Compares the oldest record that has runs after it (or the newest record) with the backups now: a
 * prediction "goes at run r" holds when r <= runs since and the backup is expired or gone, or when
 * r > runs since (or none) and it is still there.
 */
export function audit(target: ForecastDocument['target'], records: readonly PredictionRecord[], now: readonly TargetBackup[]): AuditResult {
  if (!records.length) {
    return { target, recorded_at: null, runs_since: 0, predictions: 0, held: 0, wrong: [], message: 'no predictions recorded yet: run `backupctl retention` first' };
  }
  const runsAfter = (r: PredictionRecord) =>
    now.filter((b) => b.created_at > Date.parse(r.recorded_at))
      .filter((b) => RUN_STATUSES.has(b.status) && !b.tags.includes('manual')).length;
  const record = records.find((r) => runsAfter(r) > 0) ?? records[records.length - 1]!;
  const runs = runsAfter(record);
  const byId = new Map(now.map((b) => [b.id, b]));
  const wrong: AuditResult['wrong'] = [];
  for (const p of record.predictions) {
    const b = byId.get(p.id);
    const gone = !b || b.status === 'expired';
    const shouldBeGone = p.expires_run !== null && p.expires_run <= runs;
    if (gone === shouldBeGone) continue;
    const predicted = p.expires_run === null ? 'stays beyond the forecast' : `goes at run ${p.expires_run} (${p.expires_at ?? 'date unknown'})`;
    wrong.push({ id: p.id, predicted, actual: !b ? 'gone' : gone ? 'expired' : 'still there' });
  }
  const held = record.predictions.length - wrong.length;
  return {
    target,
    recorded_at: record.recorded_at,
    runs_since: runs,
    predictions: record.predictions.length,
    held,
    wrong,
    message: `${held} of ${record.predictions.length} predictions held after ${runs} run${runs === 1 ? '' : 's'} since ${record.recorded_at}`,
  };
}
