// `backupctl help kinds`: topics whose text comes from what the commands know (cli/help-topics.ts
// holds the rest, and their names: LATER_TOPICS). Loaded only when such a topic is asked for.
import { KIND_IDS, KINDS, type KindSpec } from '../pipeline/kinds.js';

/** What restore-test does with a kind, from the registry's engines. */
function restoreWords(k: KindSpec): string {
  if (k.engines.includes('sql')) {
    return k.statements === 'mysql'
      ? 'loaded into a scratch MySQL/MariaDB database (--into mysql://..., else a local server), every table counted'
      : `loaded into a scratch PostgreSQL database (--into postgres://..., else a local server, else PGlite)${k.check === 'pg-custom' ? ' through pg_restore' : ''}, every table counted`;
  }
  if (k.engines.includes('bson')) return 'parsed document by document and counted per collection (structure-only: not loaded)';
  if (k.engines.includes('extract')) return 'extracted into a private folder and counted against its own listing; --exec runs inside';
  if (k.encrypted) return 'not restored: encrypted (decrypted first with --private-key or --decrypt-with)';
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
    restore-test:  ${restoreWords(k)}`;
}).join('\n')}

Every file also gets its size against the record's and its sha256 (verify's
ledger: "changed since" when the bytes differ from those verified before).
`;

export const topics: Record<string, { summary: string; text: string }> = {
  kinds: { summary: 'What verify and restore-test make of each kind of file', text: kinds },
};
