// The report as ONE self-contained HTML file: inline CSS, inline SVG charts,
// no script, no font, no image, nothing fetched (a Content-Security-Policy of
// default-src 'none' makes sure), readable on paper. Every text from the
// service is escaped. It reads the document only.
import { sanitize } from '../output/sanitize.js';
import { evidenceHtml } from './evidence-view.js';
import { durationText } from '../util/duration.js';
import { dayCells, type DayCell } from './compute.js';
import type { ReportDocument, ReportEntry, ReportTotals, RunOutcome } from './document.js';
import { acknowledgedLines, anomalyCell, anomalyWarning } from '../fleet/anomalies.js';
import {
  SECTIONS,
  entryLabel,
  lastSuccessText,
  localTime,
  missedText,
  percent,
  restoreTestText,
  scheduleText,
  sectionNotes,
  seconds,
  sizeText,
  totalsLine,
  unscheduledText,
  utcTime,
  verifyText,
} from './text.js';

/** Text from anywhere, made safe for HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return sanitize(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
const h = escapeHtml;

const COLOURS: Record<RunOutcome | 'none', string> = {
  completed: '#2e7d32',
  completed_with_errors: '#f9a825',
  failed: '#c62828',
  expired: '#8e24aa',
  in_progress: '#1e88e5',
  pending: '#b0bec5',
  missed: '#ffffff',
  // Schedule unknown: neither "nothing expected" (grey) nor a verdict; it also carries a "?".
  unknown: '#fde7b0',
  none: '#eceff1',
};
const LABELS: Record<RunOutcome | 'none', string> = {
  completed: 'completed',
  completed_with_errors: 'completed with errors',
  failed: 'failed',
  expired: 'expired',
  in_progress: 'in progress',
  pending: 'pending (grace not over)',
  missed: 'missed',
  unknown: 'schedule unknown',
  none: 'no run expected',
};

const CSS = `
:root { --fg: #1d2329; --muted: #5f6b76; --line: #d5dbe0; --bg: #ffffff; --panel: #f6f8fa; --bad: #c62828; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; color: var(--fg); background: var(--bg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 6px; }
p.meta, .muted { color: var(--muted); }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; min-width: 120px; }
.card b { display: block; font-size: 22px; }
.card.bad b { color: var(--bad); }
.card span { color: var(--muted); font-size: 12px; }
.sections { margin: 0; padding-left: 18px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 6px; text-align: right; vertical-align: top; white-space: nowrap; }
td.text, td:first-child { white-space: normal; }
th { background: var(--panel); font-weight: 600; white-space: normal; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
td.bad { color: var(--bad); font-weight: 600; }
td.unknown { color: #6d4c00; }
.nowrap { white-space: nowrap; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; font-size: 12px; color: var(--muted); margin: 6px 0 10px; }
.legend svg { vertical-align: -2px; margin-right: 4px; }
.strips-scroll { overflow-x: auto; }
.strips { display: grid; grid-template-columns: minmax(140px, 220px) 1fr; gap: 4px 12px; align-items: center; }
.strips .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; line-height: 1.2; }
.strips .name .zone { display: block; font-size: 11px; }
.strips .name .short { display: none; }
.strips svg.chart { max-width: none; }
.table-scroll { overflow-x: auto; }
@media screen and (max-width: 600px) {
  body { padding: 12px 12px 32px; }
  .strips { grid-template-columns: 130px 1fr; gap: 4px 8px; }
  .strips .name { position: sticky; left: 0; z-index: 1; background: var(--bg); font-size: 12px; }
  /* Scrolled to the newest days first: a right-to-left scroller around a left-to-right grid. */
  .strips .name .long { display: none; }
  .strips .name .short { display: inline; }
  .table-scroll td:first-child, .table-scroll th:first-child { position: sticky; left: 0; z-index: 1; background: var(--bg); }
  .table-scroll th:first-child { background: var(--panel); }
  .strips-scroll { direction: rtl; }
  .strips { direction: ltr; }
  .chart-scroll { overflow-x: auto; }
  .chart-scroll svg.chart { max-width: none; }
  .multiples { grid-template-columns: 1fr; }
  .card { min-width: 90px; padding: 8px 10px; }
  .card b { font-size: 18px; }
}
.multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(330px, 1fr)); gap: 16px; }
.multiples figure { margin: 0; }
figcaption { font-size: 13px; margin-bottom: 2px; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg text { font: 11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; fill: var(--muted); }
svg text.q { font-weight: 700; fill: #6d4c00; }
svg text.rate { fill: var(--fg); }
ul.notes { margin: 4px 0; padding-left: 18px; font-size: 13px; }
ul.notes li.missed { color: var(--bad); }
ul.notes li.anomaly { color: var(--bad); }
ul.notes li.acknowledged { color: var(--muted); }
footer { margin-top: 32px; font-size: 12px; color: var(--muted); }
@media print {
  @page { margin: 12mm; }
  body { padding: 0; font-size: 10pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  h2 { break-after: avoid; }
  figure, .card, tr, .strips > * { break-inside: avoid; }
  .multiples { grid-template-columns: repeat(2, 1fr); }
  /* Every column on the paper: smaller, and cells may wrap (a column past the edge is lost). */
  table { font-size: 6.5pt; }
  th, td { padding: 2px 1px; }
  th, td { white-space: normal; }
  .strips-scroll, .table-scroll, .chart-scroll { overflow: visible; }
  .chart-scroll svg.chart { max-width: 100%; }
  .strips { min-width: 0 !important; }
  .strips svg.chart { max-width: 100%; }
}
`;

function card(value: string, label: string, bad = false): string {
  return `<div class="card${bad ? ' bad' : ''}"><b>${h(value)}</b><span>${h(label)}</span></div>`;
}

function summary(doc: ReportDocument): string {
  const jobs = doc.summary.jobs;
  const failed = jobs.failed + jobs.expired;
  let out = '<section id="summary"><h2>Fleet summary</h2><div class="cards">';
  out += card(String(jobs.entries), 'jobs');
  out += card(String(jobs.expected), 'expected runs');
  out += card(String(jobs.completed), 'completed');
  out += card(String(jobs.completed_with_errors), 'completed with errors', jobs.completed_with_errors > 0);
  out += card(String(failed), 'failed or expired', failed > 0);
  out += card(String(jobs.missed), 'missed', jobs.missed > 0);
  out += card(String(jobs.unscheduled), 'unscheduled');
  out += card(percent(jobs.success_rate), 'success rate', jobs.success_rate !== null && jobs.success_rate < 0.999);
  out += '</div><ul class="sections">';
  for (const [key, title, noun] of SECTIONS) {
    const t: ReportTotals | null = doc.summary[key];
    out += t ? `<li><b>${h(title)}</b>: ${h(totalsLine(noun, t))}</li>` : `<li><b>${h(title)}</b>: not read</li>`;
  }
  return out + '</ul></section>';
}

// ---------------------------------------------------------------------------
// Charts

/** Horizontal bars, one per entry. */
function successChart(entries: readonly ReportEntry[], id: string): string {
  const rowH = 22;
  // The name and the rate before the bar: on a 420 px phone the chart scrolls a little rather than
  // shrinking its text past reading, and what scrolls away is the end of the bars, not the figures.
  const labelW = 220;
  const barW = 300;
  const height = entries.length * rowH + 24;
  const width = labelW + barW + 12;
  let out = `<svg class="chart" id="${id}" role="img" aria-label="Success rate per entry" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">`;
  for (const pct of [0, 50, 100]) {
    const x = labelW + (barW * pct) / 100;
    out += `<line x1="${x}" y1="0" x2="${x}" y2="${height - 16}" stroke="#d5dbe0"/><text x="${x}" y="${height - 4}" text-anchor="middle">${pct}%</text>`;
  }
  entries.forEach((e, i) => {
    const y = i * rowH + 3;
    const name = entryLabel(e);
    out += `<text x="${labelW - 56}" y="${y + 13}" text-anchor="end">${h(middleCut(name, 26))}</text>`;
    out += `<text x="${labelW - 8}" y="${y + 13}" text-anchor="end" class="rate">${h(e.success_rate === null ? 'n/a' : percent(e.success_rate))}</text>`;
    if (e.success_rate === null) return;
    const w = Math.max(1, barW * e.success_rate);
    const fill = e.success_rate >= 0.999 ? COLOURS.completed : e.success_rate >= 0.9 ? COLOURS.completed_with_errors : COLOURS.failed;
    out += `<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${rowH - 8}" rx="2" fill="${fill}"><title>${h(`${name}: ${percent(e.success_rate)}`)}</title></rect>`;
  });
  return out + '</svg>';
}

const CELL = 16;
const GAP = 2;

/**
 * The mark of an outcome inside a 16-unit cell, so colour is never the only sign (issue 25 §8):
 * completed a tick, with errors "!", failed a white cross, expired a slashed circle, missed a red
 * cross on white, in progress a triangle, pending a ring, schedule unknown "?".
 */
function markSvg(outcome: RunOutcome | 'none'): string {
  switch (outcome) {
    case 'completed':
      return '<path d="M4 8.5 L7 11.5 L12 4.5" stroke="#ffffff" stroke-width="2" fill="none"/>';
    case 'completed_with_errors':
      return '<path d="M8 3.5 V9 M8 11 V12.5" stroke="#1d2329" stroke-width="2"/>';
    case 'failed':
      return '<path d="M5 5 L11 11 M11 5 L5 11" stroke="#ffffff" stroke-width="2"/>';
    case 'expired':
      return '<circle cx="8" cy="8" r="4" stroke="#ffffff" stroke-width="1.5" fill="none"/><path d="M5.2 10.8 L10.8 5.2" stroke="#ffffff" stroke-width="1.5"/>';
    case 'missed':
      return `<path d="M4 4 L12 12 M12 4 L4 12" stroke="${COLOURS.failed}" stroke-width="2"/>`;
    case 'in_progress':
      return '<path d="M6 4.5 L11.5 8 L6 11.5 Z" fill="#ffffff"/>';
    case 'pending':
      return '<circle cx="8" cy="8" r="3" stroke="#37474f" stroke-width="1.2" fill="none"/>';
    case 'unknown':
      return '<text x="8" y="12" text-anchor="middle" class="q">?</text>';
    default:
      return '';
  }
}

/** A long name cut in the middle, so the end that tells "… 192.0.2.30" from "… 192.0.2.37" stays. */
export function middleCut(name: string, max: number): string {
  const chars = [...name];
  if (chars.length <= max) return name;
  const tail = Math.ceil((max - 1) / 2);
  return `${chars.slice(0, max - 1 - tail).join('').trimEnd()}…${chars.slice(chars.length - tail).join('').trimStart()}`;
}

/** A day of an entry whose runs cannot be computed: its backups (all unscheduled) by their worst outcome. */
function backupsOfDay(c: DayCell, e: ReportEntry): string {
  const noun = e.kind === 'job' ? 'backup' : 'snapshot';
  const backups = !c.unscheduled ? `no ${noun}` : c.unscheduled === 1 ? `1 ${noun}, ${LABELS[c.outcome ?? 'none']}` : `${c.unscheduled} ${noun}s, worst ${LABELS[c.outcome ?? 'none']}`;
  return `${c.day}: ${backups} (schedule unknown: expected runs cannot be computed)`;
}

function cellSvg(c: DayCell | undefined, x: number, e: ReportEntry): string {
  const label = entryLabel(e);
  const outcome = c?.outcome ?? (c?.scheduleUnknown ? 'unknown' : 'none');
  const fill = COLOURS[outcome];
  const changed = e.schedule_changed_at ? `schedule changed on ${e.schedule_changed_at.slice(0, 10)}` : '';
  const title = !c
    ? 'outside the window'
    : !e.computable
      ? backupsOfDay(c, e)
      : c.runs
        ? `${c.day}: ${c.runs} expected${c.missed ? `, ${c.missed} missed` : ''}, worst ${outcome === 'unknown' ? `unknown (${changed})` : LABELS[outcome]}${c.unscheduled ? `, ${c.unscheduled} unscheduled` : ''}`
        : `${c.day}: ${c.scheduleUnknown ? `schedule unknown (${changed})` : 'no run expected'}${c.unscheduled ? `, ${c.unscheduled} unscheduled` : ''}`;
  let out = `<rect x="${x}" y="0" width="${CELL}" height="${CELL}" rx="2" fill="${fill}" stroke="${outcome === 'missed' ? COLOURS.failed : 'none'}" stroke-width="${outcome === 'missed' ? 1.5 : 0}"><title>${h(`${label} ${title}`)}</title></rect>`;
  // The worst outcome's mark; a day whose worst is not "missed" but that missed a run still shows the cross.
  const mark = markSvg(c?.missed && outcome !== 'missed' ? 'missed' : outcome);
  if (mark) out += `<g transform="translate(${x} 0)" pointer-events="none">${mark}</g>`;
  // Without expected runs every backup is unscheduled: a dot on each day would say nothing.
  if (c?.unscheduled && e.computable) out += `<circle cx="${x + CELL / 2}" cy="${CELL + 4}" r="2" fill="#37474f"/>`;
  return out;
}

/** One strip per entry: a cell per day of the window in the entry's own time zone, aligned by date. */
function calendar(entries: readonly ReportEntry[], since: number, until: number, id: string): string {
  const rows = entries.map((e) => ({ e, cells: dayCells(e, since, until) }));
  const days = [...new Set(rows.flatMap((r) => r.cells.map((c) => c.day)))].sort();
  const width = days.length * (CELL + GAP);
  const height = CELL + 8;
  // On a narrow screen the strips keep their cells (16 px) and scroll sideways, names held at the left.
  let out = `<div class="strips-scroll"><div class="strips" style="min-width: ${width + 150}px">`;
  // A header row: day of month every few days.
  out += '<div></div>';
  out += `<svg class="chart" id="${id}-days" role="img" aria-label="Days" width="${width}" height="14" viewBox="0 0 ${width} 14" xmlns="http://www.w3.org/2000/svg">`;
  days.forEach((d, i) => {
    const last = i === days.length - 1;
    // Every fifth day and the last; a fifth day too close to the last (its label would overlap it) gives way.
    const labelled = last || (i % 5 === 0 && (i === 0 || days.length - 1 - i >= 3));
    if (labelled) out += `<text x="${last ? width : i * (CELL + GAP) + CELL / 2}" y="11" text-anchor="${last ? 'end' : i === 0 ? 'start' : 'middle'}">${h(d.slice(5))}</text>`;
  });
  out += '</svg>';
  rows.forEach(({ e, cells }, r) => {
    const label = entryLabel(e);
    const byDay = new Map(cells.map((c) => [c.day, c]));
    out += `<div class="name" title="${h(`${label} (${e.timezone})`)}"><span class="long">${h(middleCut(label, 28))}</span><span class="short">${h(middleCut(label, 18))}</span> <span class="muted zone">${h(e.timezone)}</span></div>`;
    out += `<svg class="chart" id="${id}-${r}" role="img" aria-label="${h(`Calendar of ${label}`)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">`;
    days.forEach((d, i) => (out += cellSvg(byDay.get(d), i * (CELL + GAP), e)));
    out += '</svg>';
  });
  return out + '</div></div>';
}

function legend(): string {
  const items = (['completed', 'completed_with_errors', 'failed', 'expired', 'missed', 'in_progress', 'pending', 'unknown', 'none'] as const).map((o) => {
    return `<span><svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true"><rect x="0.5" y="0.5" width="15" height="15" rx="2" fill="${COLOURS[o]}" stroke="${o === 'missed' ? COLOURS.failed : '#b0bec5'}"/>${markSvg(o)}</svg>${h(LABELS[o])}</span>`;
  });
  items.push('<span><svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true"><circle cx="7" cy="7" r="2.5" fill="#37474f"/></svg>unscheduled backup that day</span>');
  return `<div class="legend">${items.join('')}</div>`;
}

/** Durations over the window: one small chart per entry, points coloured by status. */
function durationChart(e: ReportEntry, since: number, until: number, id: string): string {
  const w = 336;
  const hgt = 110;
  const left = 60;
  const bottom = 18;
  const plotW = w - left - 8;
  const plotH = hgt - bottom - 8;
  const points = e.duration.points;
  const max = Math.max(1, ...points.map((p) => p.seconds));
  const x = (iso: string) => left + ((Date.parse(iso) - since) / Math.max(1, until - since)) * plotW;
  const y = (s: number) => 8 + plotH - (s / max) * plotH;
  let out = `<svg class="chart" id="${id}" role="img" aria-label="${h(`Durations of ${entryLabel(e)}`)}" width="${w}" height="${hgt}" viewBox="0 0 ${w} ${hgt}" xmlns="http://www.w3.org/2000/svg">`;
  out += `<rect x="${left}" y="8" width="${plotW}" height="${plotH}" fill="#f6f8fa" stroke="#d5dbe0"/>`;
  out += `<text x="${left - 4}" y="14" text-anchor="end">${h(seconds(max))}</text><text x="${left - 4}" y="${8 + plotH}" text-anchor="end">0</text>`;
  out += `<text x="${left}" y="${hgt - 4}">${h(new Date(since).toISOString().slice(5, 10))}</text><text x="${left + plotW}" y="${hgt - 4}" text-anchor="end">${h(new Date(until).toISOString().slice(5, 10))}</text>`;
  if (e.duration.median_seconds !== null) {
    const my = y(e.duration.median_seconds);
    out += `<line x1="${left}" y1="${my.toFixed(1)}" x2="${left + plotW}" y2="${my.toFixed(1)}" stroke="#90a4ae" stroke-dasharray="4 3"><title>median ${h(seconds(e.duration.median_seconds))}</title></line>`;
  }
  if (points.length > 1) {
    out += `<polyline fill="none" stroke="#78909c" stroke-width="1" points="${points.map((p) => `${x(p.started_at).toFixed(1)},${y(p.seconds).toFixed(1)}`).join(' ')}"/>`;
  }
  for (const p of points) {
    const fill = p.status === 'completed_with_errors' ? COLOURS.completed_with_errors : COLOURS.completed;
    out += `<circle cx="${x(p.started_at).toFixed(1)}" cy="${y(p.seconds).toFixed(1)}" r="2.5" fill="${fill}"><title>${h(`${p.started_at}: ${seconds(p.seconds)}`)}</title></circle>`;
  }
  if (!points.length) out += `<text x="${left + plotW / 2}" y="${8 + plotH / 2}" text-anchor="middle">no finished backup in the window</text>`;
  return out + '</svg>';
}

// ---------------------------------------------------------------------------
// Tables

/** Dates stay whole when a cell wraps ("2026-11-<br>26" otherwise). */
function wholeDates(html: string): string {
  return html.replace(/\b(\d{4}-\d\d-\d\d)\b/g, '<span class="nowrap">$1</span>');
}

/** The schedules of an entry in words (jobs, as status has them), else their text and time zone. */
function figuresSchedule(e: ReportEntry): string {
  const zone = (z: string) => h(z).replace(/\//g, '/<wbr>');
  if (!e.schedules.length) return 'none';
  return e.schedules
    .map((s) => {
      if (s.words) {
        const at = s.words.lastIndexOf(` ${s.timezone}`);
        return at > 0 ? `${h(s.words.slice(0, at))} ${zone(s.timezone)}` : h(s.words);
      }
      return s.expected === null ? h(s.text) : `${h(s.text)} ${zone(s.timezone)}`;
    })
    .join('<br>');
}

function entryTable(entries: readonly ReportEntry[]): string {
  const jobs = entries.some((e) => e.kind === 'job');
  // The anomalies column where the catalog knows a job's backups (issue 33).
  const anomalies = entries.some((e) => e.anomalies);
  const head = ['Name', 'Schedule', 'Expected', 'Completed', 'With errors', 'Failed', 'Missed', 'Unscheduled', 'Success', 'Median', 'P95', 'Size', 'Last success', ...(jobs ? ['Verify', 'Restore test'] : []), ...(anomalies ? ['Anomalies'] : [])];
  let out = `<div class="table-scroll"><table><thead><tr>${head.map((c, i) => `<th${i === 1 || i >= 12 ? ' class="text"' : ''}>${c}</th>`).join('')}</tr></thead><tbody>`;
  for (const e of entries) {
    const failed = e.failed + e.expired;
    const cells = [
      `<td>${h(entryLabel(e))}</td>`,
      // In words, as status writes it ("daily at 04:00 America/New_York"); a time zone may break after its slash.
      `<td class="text">${figuresSchedule(e)}</td>`,
      `<td${e.expected === null ? ' class="unknown"' : ''}>${e.expected ?? 'unknown'}</td>`,
      `<td>${e.completed}</td>`,
      `<td>${e.completed_with_errors}</td>`,
      `<td${failed ? ' class="bad"' : ''}>${failed}</td>`,
      `<td${e.missed ? ' class="bad"' : e.missed === null ? ' class="unknown"' : ''}>${h(missedText(e))}</td>`,
      `<td>${h(unscheduledText(e))}</td>`,
      `<td>${h(percent(e.success_rate))}</td>`,
      `<td>${h(seconds(e.duration.median_seconds))}</td>`,
      `<td>${h(seconds(e.duration.p95_seconds))}</td>`,
      `<td>${h(sizeText(e))}</td>`,
      // The date stays whole when the cell wraps (2026-11-<br>24 on paper otherwise).
      `<td class="text">${h(lastSuccessText(e, null)).replace(/^(\d{4}-\d\d-\d\d) /, '<span class="nowrap">$1</span> ')}</td>`,
      ...(jobs
        ? [
            `<td class="text${e.verify?.of_newest && e.verify.state === 'failed' ? ' bad' : ''}">${wholeDates(h(verifyText(e, null)))}</td>`,
            `<td class="text${e.restore_test?.of_newest && e.restore_test.state === 'failed' ? ' bad' : ''}">${wholeDates(h(restoreTestText(e, null)))}</td>`,
          ]
        : []),
      ...(anomalies ? [`<td class="text${e.anomalies?.anomalous ? ' bad' : ''}">${h(anomalyCell(e.anomalies))}</td>`] : []),
    ];
    out += `<tr>${cells.join('')}</tr>`;
  }
  out += '</tbody></table></div>';
  const notes: string[] = [];
  for (const e of entries) {
    if (e.missed_runs.length) {
      notes.push(`<li class="missed"><b>${h(entryLabel(e))}</b> missed: ${e.missed_runs.map((t) => `<time datetime="${h(t)}">${h(localTime(t, e.timezone))}</time>`).join(', ')}</li>`);
    }
  }
  for (const e of entries) {
    // What anomalies found (issue 33): the backups not acknowledged with the last clean one, then the acknowledged ones as such.
    const w = anomalyWarning(e.anomalies);
    if (w) notes.push(`<li class="anomaly"><b>${h(entryLabel(e))}</b>: ${wholeDates(h(w.text))}</li>`);
    for (const a of acknowledgedLines(e.anomalies)) notes.push(`<li class="acknowledged"><b>${h(entryLabel(e))}</b>: ${wholeDates(h(a))}</li>`);
  }
  for (const { entry, note } of sectionNotes(entries)) notes.push(`<li><b>${h(entry ? entryLabel(entry) : `all ${entries.length}`)}</b>: ${h(note)}</li>`);
  return notes.length ? `${out}<ul class="notes">${notes.join('')}</ul>` : out;
}

function section(title: string, key: string, entries: readonly ReportEntry[], since: number, until: number): string {
  let out = `<section id="${key}"><h2>${h(title)}</h2>`;
  if (!entries.length) return `${out}<p class="muted">None.</p></section>`;
  out += `<h3>Calendar</h3>${legend()}${calendar(entries, since, until, `calendar-${key}`)}`;
  out += `<h3>Success rate</h3><div class="chart-scroll">${successChart(entries, `success-${key}`)}</div>`;
  out += `<h3>Durations over time</h3><div class="multiples">`;
  entries.forEach((e, i) => {
    const stats = e.duration.count ? ` <span class="muted">median ${h(seconds(e.duration.median_seconds))}, p95 ${h(seconds(e.duration.p95_seconds))}</span>` : '';
    out += `<figure><figcaption>${h(entryLabel(e))}${stats}</figcaption>${durationChart(e, since, until, `durations-${key}-${i}`)}</figure>`;
  });
  out += `</div><h3>Figures</h3>${entryTable(entries)}`;
  return `${out}</section>`;
}

export function reportHtml(doc: ReportDocument): string {
  const since = Date.parse(doc.window.since);
  const until = Date.parse(doc.window.until);
  const title = `Backup report ${utcTime(doc.window.since)} to ${utcTime(doc.window.until)}`;
  let body = `<header><h1>Backup report</h1><p class="meta">${h(utcTime(doc.window.since))} to ${h(utcTime(doc.window.until))} · grace ${h(durationText(doc.window.grace_seconds * 1000))} · made ${h(utcTime(doc.generated_at))}. Days are counted in each job's time zone.</p></header>`;
  body += summary(doc);
  for (const [key, title] of SECTIONS) {
    const entries = doc[key];
    if (entries) body += section(title, key, entries, since, until);
  }
  if (doc.assurance) body += evidenceHtml(doc.assurance);
  body += `<footer><h2>Rules</h2><ul>${doc.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul><p>Made by backupctl report; ${doc.jobs.length} job${doc.jobs.length === 1 ? '' : 's'}.</p></footer>`;
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    // Nothing may be fetched: no script, font, image or style from anywhere.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${h(title)}</title><style>${CSS}</style></head><body>${body}</body></html>\n`
  );
}
