// The Prometheus text exposition format (version 0.0.4), for node_exporter's
// textfile collector: metric families with escaped labels. status, verify and
// restore-test write their metrics with it.
import { sanitize } from './sanitize.js';

/**
 * Label values: control characters and escape sequences from the service
 * stripped (line breaks and tabs become a space), as tables and tsv do; then
 * backslash and double quote escaped, as the format asks.
 */
export function escapeLabelValue(value: string): string {
  return sanitize(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/** HELP text: backslash and line feed escaped. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export type Labels = Record<string, string>;

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function numberText(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}

/** Metric families in the text format, in the order given. */
export class Exposition {
  private text = '';
  family(name: string, type: 'gauge' | 'counter', help: string, samples: Array<[Labels, number]>): void {
    this.text += `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`;
    for (const [labels, value] of samples) this.text += `${name}${labelText(labels)} ${numberText(value)}\n`;
  }
  toString(): string {
    return this.text;
  }
}

