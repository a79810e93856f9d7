// The restore testing evidence (evidence.ts) as Markdown and as a section of the HTML report: one
// table row per job and test (which backup, when, the engine, the RTO measured against its budget,
// the validations held and failed, covered or not), then each job's plan and why a test is not covered.
import { sanitize } from '../output/sanitize.js';
import type { Evidence, EvidenceTest } from './evidence.js';

const KIND = { verify: 'verify', restore_test: 'restore test' } as const;
const minute = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '');

function rtoText(t: EvidenceTest): string {
  if (t.kind !== 'restore_test') return '';
  const measured = t.total_seconds === null ? 'not measured' : `${t.total_seconds.toFixed(1)} s`;
  return t.rto_seconds === null ? measured : `${measured} of ${t.rto_seconds} s${t.rto_met === false ? ' (missed)' : ''}`;
}

function assertionsText(t: EvidenceTest): string {
  if (!t.assertions.length) return '';
  const held = t.assertions.filter((a) => a.held === true).length;
  const failed = t.assertions.filter((a) => a.held === false).length;
  const notRun = t.assertions.length - held - failed;
  return [`${held} held`, ...(failed ? [`${failed} failed`] : []), ...(notRun ? [`${notRun} not run`] : [])].join(', ');
}

function cells(t: EvidenceTest): string[] {
  return [
    KIND[t.kind],
    t.every,
    t.backup_id ?? 'none',
    minute(t.backup_created_at),
    minute(t.tested_at),
    t.result ?? 'never',
    t.engine ?? '',
    rtoText(t),
    assertionsText(t),
    t.covered ? 'yes' : `no: ${t.state}`,
  ];
}

const HEAD = ['Job', 'Test', 'Every', 'Backup', 'Backup created', 'Tested', 'Result', 'Engine', 'RTO measured / budget', 'Assertions', 'Covered'];

function summaryLine(ev: Evidence): string {
  const s = ev.summary;
  return `${s.covered} of ${s.jobs} job${s.jobs === 1 ? '' : 's'} covered (${s.tests_covered} of ${s.tests} test${s.tests === 1 ? '' : 's'}), judged at ${minute(ev.judged_at)} against the plans of ${ev.plan_file}.`;
}

const RULE =
  'A test is covered by a passing verify or restore test within its plan\'s window, the RTO met and every validation held; a missing or stale proof, a failure, ' +
  'and an unchecked result (size and hash only) are not covered.';

const mdCell = (text: string) => sanitize(text).replace(/[\\`*_{}[\]<>#|~]/g, (c) => `\\${c}`);

export function evidenceMarkdown(ev: Evidence): string {
  const lines = ['## Restore testing evidence', '', summaryLine(ev).replace(ev.plan_file, mdCell(ev.plan_file)), '', RULE, ''];
  if (!ev.jobs.length) return [...lines, 'No job has a plan.', ''].join('\n');
  lines.push(`| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => ' --- ').join('|')}|`);
  for (const j of ev.jobs) for (const t of j.tests) lines.push(`| ${[j.job, ...cells(t)].map(mdCell).join(' | ')} |`);
  lines.push('', '### Plans', '');
  for (const j of ev.jobs) {
    lines.push(`- **${mdCell(j.job)}** (${j.selector === j.job ? 'its own plan' : `plan "${mdCell(j.selector)}"`}): ${mdCell(j.plan)}`);
    for (const t of j.tests) {
      if (!t.covered) lines.push(`  - ${KIND[t.kind]} not covered: ${mdCell(t.why)}`);
      for (const a of t.assertions) lines.push(`  - ${a.held === true ? 'held' : a.held === false ? 'FAILED' : 'not run'}: \`${sanitize(a.validation).replace(/`/g, "'")}\``);
    }
  }
  lines.push('');
  return lines.join('\n');
}

const h = (text: string) => sanitize(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function evidenceHtml(ev: Evidence): string {
  let out = `<section id="assurance"><h2>Restore testing evidence</h2><p>${h(summaryLine(ev))}</p><p class="muted">${h(RULE)}</p>`;
  if (!ev.jobs.length) return `${out}<p class="muted">No job has a plan.</p></section>`;
  out += `<div class="table-scroll"><table><thead><tr>${HEAD.map((c) => `<th class="text">${h(c)}</th>`).join('')}</tr></thead><tbody>`;
  for (const j of ev.jobs) {
    for (const t of j.tests) {
      const c = cells(t);
      const tds = [j.job, ...c].map((v, i) => `<td class="text${(i === c.length && !t.covered) || (i === 6 && t.result === 'failed') ? ' bad' : ''}">${h(v)}</td>`);
      out += `<tr data-job="${h(j.job)}" data-test="${t.kind}" data-covered="${t.covered}">${tds.join('')}</tr>`;
    }
  }
  out += '</tbody></table></div><h3>Plans</h3><ul class="notes">';
  for (const j of ev.jobs) {
    const sub = j.tests.flatMap((t) => [
      ...(t.covered ? [] : [`<li class="missed">${h(KIND[t.kind])} not covered: ${h(t.why)}</li>`]),
      ...t.assertions.map((a) => `<li${a.held === false ? ' class="missed"' : ''}>${a.held === true ? 'held' : a.held === false ? 'FAILED' : 'not run'}: <code>${h(a.validation)}</code></li>`),
    ]);
    out += `<li><b>${h(j.job)}</b>: ${h(j.plan)}${sub.length ? `<ul>${sub.join('')}</ul>` : ''}</li>`;
  }
  return `${out}</ul></section>`;
}
