// The manifest as the program reads it (see CommandSource in contract/spec.ts),
// the whole program declared from it, and the start-up files the build writes.
import { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import type { CommandSource, Manifest, ManifestCommand, StartupIndex, StartupWord } from '../contract/spec.js';
import { buildProgram } from './program.js';
import type { IO } from '../contract/context.js';

export function manifestSource(manifest: Manifest): CommandSource {
  const byTop = new Map<string, ManifestCommand[]>();
  for (const c of manifest.commands) byTop.set(c.path[0]!, [...(byTop.get(c.path[0]!) ?? []), c]);
  const commandsOf = (top: string): ManifestCommand[] => byTop.get(top) ?? [];
  return {
    version: manifest.version,
    groups: manifest.groups,
    tops: [...byTop.keys()],
    isEager: (top) => isEagerWord(commandsOf(top)),
    commandsOf,
  };
}

/** Every command declared, printing nowhere: for reading the program's options and help (the build, completion). */
export function declaredProgram(manifest: Manifest): Command {
  const sink = new Writable({ write: (_c, _e, done) => done() });
  const io: IO = { stdout: sink, stderr: sink, stdin: Readable.from([]), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 80 };
  return buildProgram(manifestSource(manifest), io, async () => {});
}

/**
 * The start-up files for a manifest: `index.json` and `<word>.json` per
 * top-level word. The index holds how the help lists each word that is a
 * command itself, read from a program declared in full, so it cannot drift.
 */
export function startupFiles(manifest: Manifest): Record<string, unknown> {
  const source = manifestSource(manifest);
  const program = declaredProgram(manifest);
  const help = program.createHelp();
  const files: Record<string, unknown> = {};
  const words: Record<string, StartupWord> = {};
  const terms: Record<string, string> = {};
  for (const top of source.tops) {
    if (top === 'index') throw new Error('a command group named "index" would overwrite dist/startup/index.json');
    const commands = source.commandsOf(top);
    files[`${top}.json`] = commands;
    if (!isEagerWord(commands)) continue;
    const { summary, hidden, aliases } = commands.find((c) => c.path.length === 1)!;
    words[top] = { summary, hidden, aliases };
    terms[top] = help.subcommandTerm(program.commands.find((c) => c.name() === top)!);
  }
  const index: StartupIndex = { version: manifest.version, groups: manifest.groups, tops: source.tops, words, terms };
  files['index.json'] = index;
  return files;
}

/** A word that is itself a command (path of one word) is declared at start-up: the top-level help shows its arguments. */
export function isEagerWord(commands: readonly ManifestCommand[]): boolean {
  return commands.some((c) => c.path.length === 1);
}
