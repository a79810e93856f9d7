// Run by scripts/build.mjs: loads every module once, checks its commands
// and returns the manifest that the start-up path reads instead of the modules.
import type { Manifest, ManifestCommand } from '../contract/spec.js';
import { groups, moduleLoaders } from '../commands/registry.js';
import { effectiveParams, flagName } from '../cli/params.js';

export async function collectManifest(version: string): Promise<Manifest> {
  const commands: ManifestCommand[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [name, load] of Object.entries(moduleLoaders)) {
    const mod = await load();
    for (const cmd of mod.module.commands) {
      const where = `${name}: ${cmd.path.join(' ')}`;
      const key = cmd.path.join(' ');
      if (seen.has(key)) problems.push(`${where}: defined twice`);
      seen.add(key);
      if (!cmd.examples.length) problems.push(`${where}: no example`);
      if (cmd.handler && !mod.handlers?.[cmd.handler]) problems.push(`${where}: handler ${cmd.handler} not exported`);
      if (!cmd.handler && !cmd.endpoint) problems.push(`${where}: neither endpoint nor handler`);
      if (cmd.output.columns && !mod.columns?.[cmd.output.columns]) problems.push(`${where}: columns ${cmd.output.columns} not exported`);
      if (cmd.output.schema && !mod.schemas?.[cmd.output.schema]) problems.push(`${where}: schema ${cmd.output.schema} not exported`);
      for (const s of cmd.output.sections ?? []) if (!mod.columns?.[s.columns]) problems.push(`${where}: section columns ${s.columns} not exported`);
      if (cmd.validator && !mod.checks?.[cmd.validator]) problems.push(`${where}: check ${cmd.validator} not exported`);
      const c = cmd.checks;
      const named = [...(c?.atLeastOne?.params ?? []), ...(c?.atMostOne ?? []), ...(c?.exactlyOne ?? []), ...(c?.orAll ? [c.orAll.param, 'all'] : [])];
      for (const n of named) if (!cmd.params.some((p) => p.name === n)) problems.push(`${where}: checks name ${n}, which is no parameter`);
      const flags = new Set<string>();
      for (const p of effectiveParams(cmd)) {
        const f = flagName(p);
        if (!p.positional && flags.has(f)) problems.push(`${where}: flag --${f} declared twice`);
        flags.add(f);
        if (p.type === 'enum' && !p.values?.length) problems.push(`${where}: enum --${f} has no values`);
        if (p.in === 'path' && !cmd.endpoint?.includes(`{${p.name}}`)) problems.push(`${where}: path param ${p.name} not in ${cmd.endpoint}`);
      }
      for (const m of cmd.endpoint?.matchAll(/\{(\w+)\}/g) ?? []) {
        if (!cmd.params.some((p) => p.name === m[1] && p.in === 'path')) problems.push(`${where}: no param for {${m[1]}}`);
      }
      const columnKeys = cmd.output.columns ? mod.columns?.[cmd.output.columns]?.map((c) => c.key) : undefined;
      commands.push(JSON.parse(JSON.stringify({ ...cmd, module: name, ...(columnKeys?.length ? { columnKeys } : {}) })) as ManifestCommand);
    }
  }
  addGuessedVerbs(commands);
  if (problems.length) throw new Error(`command registry problems:\n${problems.join('\n')}`);
  return { version, groups, commands };
}

/** Verbs a user would guess for the canonical one: each works as an alias of the other. */
const GUESSED_VERBS: Record<string, string> = { create: 'add', add: 'create', delete: 'remove', remove: 'delete' };

/**
 * `servers create` and `jobs add` work as `servers add` and `jobs create` do;
 * `remove` and `delete` likewise. A word a sibling command already has is left alone.
 */
function addGuessedVerbs(commands: ManifestCommand[]): void {
  const words = new Set(commands.flatMap((c) => [c.path.join(' '), ...(c.aliases ?? []).map((a) => [...c.path.slice(0, -1), a].join(' '))]));
  for (const cmd of commands) {
    const guess = GUESSED_VERBS[cmd.path[cmd.path.length - 1]!];
    if (!guess || cmd.hidden) continue;
    const key = [...cmd.path.slice(0, -1), guess].join(' ');
    if (words.has(key)) continue;
    words.add(key);
    (cmd as { aliases?: readonly string[] }).aliases = [...(cmd.aliases ?? []), guess];
  }
}

export { commandsMarkdown } from '../cli/docs.js';

export { startupFiles } from '../cli/manifest.js';
export { completionFiles } from '../completion/index.js';
export { openapiDocument, outputSchemas } from './schemas.js';
export { backupsFileSchema } from '../ascode/filespec.js';
export { manPage } from '../cli/manpage.js';
