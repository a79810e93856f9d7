// Generated documents: docs/commands.md from the manifest. Written by
// `npm run docs`; a test checks the checked-in file is current.
import type { Manifest } from '../contract/spec.js';
import { effectiveParams, flagName } from './params.js';

export function commandsMarkdown(manifest: Manifest): string {
  const lines = [
    '# Commands',
    '',
    '<!-- Generated from the command registry by `npm run docs`; do not edit by hand. -->',
    '',
    `${manifest.commands.filter((c) => !c.hidden).length} commands. Every command also takes the global options (\`backupctl --help\`).`,
    '',
  ];
  let group = '';
  for (const c of manifest.commands) {
    if (c.hidden) continue;
    if (c.path[0] !== group) {
      group = c.path[0]!;
      lines.push(`## ${group}`, '', manifest.groups[group] ?? '', '', '| command | endpoint | what it does |', '|---|---|---|');
    }
    const args = effectiveParams(c)
      .filter((p) => p.positional)
      .map((p) => (p.required ? `<${flagName(p)}>` : `[${flagName(p)}]`))
      .join(' ');
    const endpoints = [c.method && c.endpoint ? `${c.method} /v1${c.endpoint}` : '', ...(c.alsoCalls ?? [])]
      .filter(Boolean)
      .map((e) => `\`${e.replace(/^(\w+) (?!\/v1)/, '$1 /v1')}\``)
      .join('<br>');
    lines.push(`| \`backupctl ${c.path.join(' ')}${args ? ` ${args}` : ''}\` | ${endpoints || '(local)'} | ${c.summary.replace(/\|/g, '\\|')} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** Every endpoint a command reaches, normalised as `METHOD /v1/path/{}`. */
export function endpointsOf(manifest: Manifest): Set<string> {
  const out = new Set<string>();
  for (const c of manifest.commands) {
    if (c.method && c.endpoint) out.add(normalizeEndpoint(`${c.method} /v1${c.endpoint}`));
    for (const e of c.alsoCalls ?? []) out.add(normalizeEndpoint(e.replace(/^(\w+) (?!\/v1)/, '$1 /v1')));
  }
  return out;
}

export function normalizeEndpoint(e: string): string {
  return e.trim().replace(/\{[^}]+\}/g, '{}');
}
