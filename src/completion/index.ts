// Shell completion (issue 25 §19): one entry point for the scripts of three shells, generated
// from the manifest (tree.ts, parts.ts, bash.ts, zsh.ts, fish.ts); the look-ups the scripts
// call at a TAB are in dynamic.ts. `backupctl completion` and `__complete` (src/commands/completion.ts)
// and the build's --docs step use it.
import type { Manifest } from '../contract/spec.js';
import { completionModel } from './tree.js';
import { bashScript } from './bash.js';
import { zshScript } from './zsh.js';
import { fishScript } from './fish.js';

export { completionModel, type CommandNode, type CompletionModel, type FlagInfo, type Values } from './tree.js';

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

/** Where each script is committed, relative to the repository root. */
export const COMPLETION_FILES: Record<Shell, string> = {
  bash: 'completions/backupctl.bash',
  zsh: 'completions/_backupctl',
  fish: 'completions/backupctl.fish',
};

/** The completion script for a shell, generated from the manifest. */
export function completionScript(manifest: Manifest, shell: Shell): string {
  const model = completionModel(manifest);
  switch (shell) {
    case 'bash':
      return bashScript(model);
    case 'zsh':
      return zshScript(model);
    case 'fish':
      return fishScript(model);
  }
}

/** Every committed script: path relative to the repository root -> content (for the build's --docs). */
export function completionFiles(manifest: Manifest): Record<string, string> {
  return Object.fromEntries(SHELLS.map((s) => [COMPLETION_FILES[s], completionScript(manifest, s)]));
}

