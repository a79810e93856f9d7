// What start-up reads, and the version: used by main.ts and by the commands that read the whole
// command tree (completion, schema), so that none of them imports main.ts (issue 25 §18).
import type { CommandSource, Manifest, ManifestCommand, StartupIndex } from '../contract/spec.js';
import { readBuiltFile } from '../util/built-files.js';

declare const __VERSION__: string;
export const VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : 'dev';

/**
 * The command tree for start-up: dist/startup/index.json (4 KB: the groups,
 * and how the top-level help lists the words that are commands), and a word's
 * dist/startup/<word>.json when commander enters it (the full
 * dist/manifest.json is 150 KB; a command needs its group's few KB).
 */
export function startupSource(): CommandSource {
  const read = (name: string): unknown => JSON.parse(readBuiltFile(`startup/${name}`, () => new URL(`./startup/${name}`, import.meta.url)));
  const index = read('index.json') as StartupIndex;
  return {
    version: index.version,
    groups: index.groups,
    tops: index.tops,
    isEager: (top) => Object.hasOwn(index.words, top),
    commandsOf: (top) => read(`${top}.json`) as ManifestCommand[],
    termOf: (top) => index.terms[top],
    wordOf: (top) => (Object.hasOwn(index.words, top) ? index.words[top] : undefined),
  };
}

/**
 * The whole command tree, read from dist/startup/ (the index and a file per
 * group, the files start-up reads): the same commands, in the same order, as
 * dist/manifest.json, which neither the npm package nor the single executable
 * ships (94 kB of the 3 MB an install may take, issue 14). A test holds the two equal.
 */
export function readManifest(): Manifest {
  const source = startupSource();
  return { version: source.version, groups: source.groups, commands: source.tops.flatMap((top) => source.commandsOf(top)) };
}
