// The built command tree (dist/manifest.json), for tests that adapt to the
// commands that exist: a row of a matrix uses `jobs backup start` once the
// jobs module has it, generic checks walk every command.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Manifest, ManifestCommand } from '../../src/contract/spec.js';
import { ROOT } from './cli.js';

let cached: Manifest | undefined;

/** dist/manifest.json as built by `npm run build` (npm test builds first). */
export function builtManifest(): Manifest {
  cached ??= JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8')) as Manifest;
  return cached;
}

export function findCommand(words: string): ManifestCommand | undefined {
  return builtManifest().commands.find((c) => c.path.join(' ') === words);
}
