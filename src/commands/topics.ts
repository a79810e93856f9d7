// `backupctl help kinds`: topics whose text comes from what the commands know (the kinds, the restore engines) (cli/help-topics.ts
// holds the rest, and their names: LATER_TOPICS). Loaded only when such a topic is asked for.
import { KIND_IDS, KINDS, type ContentKind } from '../pipeline/kinds.js';
import { engineOf } from '../restore/registry.js';

/** What restore-test does with a kind: the words of the engine that takes it (src/restore/registry.ts). */
function restoreWords(id: ContentKind): string {
  const engine = engineOf(id);
  if (engine) return engine.does(id);
  if (KINDS[id].encrypted) return 'not restored: encrypted (decrypted first with --private-key or --decrypt-with)';
  return 'not restored';
}

/** The registry of kinds (src/pipeline/kinds.ts), as verify and restore-test use it. */
const kinds = `What verify and restore-test make of a file

A file's kind is sniffed from its first bytes, never its name: a gzip is inflated
once (its CRC and size checked) and what it holds is sniffed. verify and
restore-test read the same kind from the same bytes. For each kind: the name in
--json's "format" (inside a gzip: <name>.gz), what verify checks and counts, and
what restore-test does with it.

${KIND_IDS.map((id) => {
  const k = KINDS[id];
  return `  ${k.format}: ${k.words}
    verify:        ${k.counts}
    restore-test:  ${restoreWords(id)}`;
}).join('\n')}

Every file also gets its size against the record's and its sha256 (verify's
ledger: "changed since" when the bytes differ from those verified before).
`;

export const topics: Record<string, { summary: string; text: string }> = {
  kinds: { summary: 'What verify and restore-test make of each kind of file', text: kinds },
};
