// The manifest as the program reads it (see CommandSource in resources/types.ts),
// and the start-up files the build writes from it.
import type { CommandSource, Manifest, ManifestCommand, StartupIndex } from '../resources/types.js';

export function manifestSource(manifest: Manifest): CommandSource {
  const tops = [...new Set(manifest.commands.map((c) => c.path[0]!))];
  return {
    version: manifest.version,
    groups: manifest.groups,
    tops,
    isEager: (top) => isEagerWord(manifest.commands.filter((c) => c.path[0] === top)),
    commandsOf: (top) => manifest.commands.filter((c) => c.path[0] === top),
  };
}

/**
 * The start-up files for a manifest: `index.json` and `<word>.json` per group
 * word. `terms`: how the help lists each word that is a command itself (the
 * build reads them from a program declared in full, so they cannot drift).
 */
export function startupFiles(manifest: Manifest, terms: Record<string, string>): Record<string, unknown> {
  const source = manifestSource(manifest);
  const files: Record<string, unknown> = {};
  const eager: ManifestCommand[] = [];
  for (const top of source.tops) {
    if (top === 'index') throw new Error('a command group named "index" would overwrite dist/startup/index.json');
    const commands = source.commandsOf(top);
    if (isEagerWord(commands)) eager.push(...commands);
    else files[`${top}.json`] = commands;
  }
  const index: StartupIndex = { version: manifest.version, groups: manifest.groups, tops: source.tops, eager, terms };
  files['index.json'] = index;
  return files;
}

/** A word that is itself a command (path of one word) is declared at start-up: the top-level help shows its arguments. */
export function isEagerWord(commands: readonly ManifestCommand[]): boolean {
  return commands.some((c) => c.path.length === 1);
}
