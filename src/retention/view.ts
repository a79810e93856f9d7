// The forecast as a table on a terminal and as Markdown: the inputs first
// (counts, schedule, time zone, the tags read, assumptions), then one row per
// backup with what keeps it and when it is predicted to go.
import type { Column } from '../contract/context.js';
import type { Palette, TableFitOptions, ViewColumn } from '../output/view-table.js';
import { table } from '../output/view-table.js';
import { sanitize } from '../output/sanitize.js';
import { retentionText } from '../backups/retention.js';
import type { Counts } from '../backups/retention.js';
import type { BackupRow, ForecastDocument } from './document.js';

const countsText = (c: Counts) => retentionText(c) ?? 'none';
const when = (iso: string | null) => (iso ? iso.replace(/:\d\d(\.\d+)?Z$/, 'Z').replace('T', ' ') : '');
const goes = (r: BackupRow) => (r.expires_at ? `${when(r.expires_at)}${r.expires_run ? ` (run ${r.expires_run})` : ''}` : r.action === 'keep' ? 'beyond forecast' : '');

function columns(shortIds: boolean): ViewColumn<BackupRow>[] {
  return [
    { key: 'id', header: 'BACKUP', text: (r) => sanitize(shortIds ? r.id.slice(0, 8) : r.id), fixed: true },
    { key: 'created_at', header: 'CREATED', text: (r) => when(r.created_at) },
    { key: 'tags', header: 'TAGS', text: (r) => r.tags.join(',') },
    {
      key: 'action',
      header: 'ACTION',
      text: (r) => r.action,
      style: (t, r, p) => (r.action === 'expire' ? p.red(t) : r.action === 'keep' ? p.green(t) : p.dim(t)),
      fixed: true,
    },
    { key: 'rules', header: 'RULE', text: (r) => (r.rules.length ? r.rules.join(', ') : r.action === 'not-counted' ? r.reason.split(':')[0]! + ': not counted' : '-') },
    { key: 'expires_at', header: 'EXPIRES', text: goes },
    { key: 'proven', header: 'PROVEN', text: (r) => (r.proven ? r.proven.by : '') },
    { key: 'reason', header: 'REASON', text: (r) => sanitize(r.reason) },
  ];
}

function inputLines(doc: ForecastDocument): string[] {
  const i = doc.inputs;
  return [
    `counts:     ${countsText(i.counts)}${i.counts_from === 'what-if' ? ` (what-if; the service holds ${countsText(i.service_counts)})` : ''}`,
    `schedule:   ${i.schedules.length ? i.schedules.map((s) => sanitize(s.text)).join('; ') : 'none'}${i.unreadable_schedules.length ? ` (unreadable: ${i.unreadable_schedules.map(sanitize).join('; ')})` : ''}`,
    `tags read:  ${i.tags_used.length ? i.tags_used.join(', ') : 'none (no count above 0)'}; manual backups are not counted`,
    `forecast:   ${i.runs_forecast} runs, until ${when(i.horizon_until)}; assumptions ${i.assumptions.join(', ')} (docs/retention.md)`,
  ];
}

function title(doc: ForecastDocument): string {
  return `${doc.target.kind} ${sanitize(doc.target.name ?? doc.target.id)}${doc.target.name ? ` (${sanitize(doc.target.id)})` : ''}`;
}

export function forecastView(docs: readonly ForecastDocument[], o: TableFitOptions & { palette: Palette; shortIds: boolean }): string {
  const parts: string[] = [];
  for (const doc of docs) {
    let out = `${o.palette.bold(title(doc))}\n${inputLines(doc).join('\n')}\n`;
    if (doc.next_run) {
      out += `next run:   ${when(doc.next_run.at)} (${doc.next_run.tags.join(',') || 'no period tag'}): ${doc.next_run.expiring.length} expire\n`;
    }
    out += '\n';
    out += doc.backups.length ? table(doc.backups, columns(o.shortIds), o, { dropOrder: ['proven', 'tags', 'created_at', 'reason'] }) : 'no backups\n';
    if (doc.simulation) out += `\n${simulationText(doc, o.shortIds)}`;
    if (doc.guard) out += `\nguard: ${doc.guard.fails ? o.palette.red('FAILS') : 'ok'}: ${sanitize(doc.guard.message)}\n`;
    parts.push(out);
  }
  return parts.join('\n');
}

function simulationText(doc: ForecastDocument, shortIds = false): string {
  const sim = doc.simulation!;
  const id = (s: string) => sanitize(shortIds && !s.startsWith('run:') ? s.slice(0, 8) : s);
  const lines = [`simulation until ${when(sim.until)}:`];
  for (const day of sim.days) {
    const made = day.runs.length;
    const gone = day.runs.flatMap((r) => r.expiring);
    lines.push(`  ${day.date}: ${made} run${made === 1 ? '' : 's'}, ${gone.length} expire${gone.length ? `: ${gone.map(id).join(', ')}` : ''}`);
  }
  lines.push(`  at the end: ${sim.remaining.length} exist: ${sim.remaining.map(id).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

const mdCell = (s: string) => sanitize(s).replace(/\|/g, '\\|');

export function forecastMarkdown(docs: readonly ForecastDocument[]): string {
  const parts: string[] = [];
  for (const doc of docs) {
    const lines = [`## ${mdCell(title(doc))}`, '', ...inputLines(doc).map((l) => `- ${mdCell(l)}`), ''];
    lines.push('| backup | created | tags | action | rule | expires | reason |', '|---|---|---|---|---|---|---|');
    for (const r of doc.backups) {
      lines.push(`| ${mdCell(r.id)} | ${when(r.created_at)} | ${r.tags.join(',')} | ${r.action} | ${mdCell(r.rules.join(', ') || '-')} | ${goes(r)} | ${mdCell(r.reason)} |`);
    }
    if (doc.simulation) lines.push('', '```', simulationText(doc).trimEnd(), '```');
    if (doc.guard) lines.push('', `Guard: ${doc.guard.fails ? '**fails**' : 'ok'}: ${mdCell(doc.guard.message)}`);
    parts.push(lines.join('\n'));
  }
  return `${parts.join('\n\n')}\n`;
}

/** tsv and ndjson: one line per backup, with what it belongs to. */
export const rowColumns: Column[] = [
  { key: 'kind', header: 'Kind' },
  { key: 'target', header: 'Of' },
  { key: 'id', header: 'Backup' },
  { key: 'created_at', header: 'Created' },
  { key: 'status', header: 'Status' },
  { key: 'tags', header: 'Tags', get: (r: BackupRow) => r.tags.join(',') },
  { key: 'action', header: 'Action' },
  { key: 'rules', header: 'Rule', get: (r: BackupRow) => r.rules.join(',') },
  { key: 'expires_at', header: 'Expires' },
  { key: 'expires_run', header: 'Run' },
  { key: 'reason', header: 'Reason' },
];
