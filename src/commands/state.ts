// `backupctl state migrate --to <postgres://…|folder>` (issue 44 §3): copies the marks of the state in
// use (the state folder, or the PostgreSQL state named by BACKUPCTL_STATE_URL / the profile's state_url)
// to another state: a PostgreSQL database the team shares, or back to a folder. Every service's marks go,
// each merged into what the target holds (the newer mark wins), so a copy run twice changes nothing.
import path from 'node:path';
import * as z from 'zod/mini';
import type { Context, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { UsageError } from '../errors.js';

export const module: ModuleSpec = {
  name: 'state',
  commands: [
    {
      path: ['state', 'migrate'],
      summary: 'Copy the marks of this state to a PostgreSQL state the team shares, or back to a folder',
      description:
        'Reads every verify and restore-test mark of the state in use (the state folder, $XDG_STATE_HOME/backupctl, or the ' +
        'PostgreSQL state that BACKUPCTL_STATE_URL or the profile\'s state_url names) and merges them into the state --to names: ' +
        'a postgres:// URL (the schema is created or migrated there) or a folder (its marks.json). Marks are kept per service ' +
        '(base URL and a fingerprint of the token, never the token); of two marks of one backup the newer wins, so running it ' +
        'again changes nothing. Then set state_url in the profile (or BACKUPCTL_STATE_URL) to use the new state. See docs/assurance.md.',
      examples: [
        'backupctl state migrate --to "postgres://backupctl@db.internal/backupctl"',
        'BACKUPCTL_STATE_URL=postgres://backupctl@db.internal/backupctl backupctl state migrate --to ~/.local/state/backupctl',
      ],
      params: [{ name: 'to', in: 'local', type: 'string', required: true, placeholder: 'url|folder', description: 'The state to copy to: postgres://… or a folder' }],
      output: { kind: 'object', schema: 'stateMigrate', messageField: 'message' },
      handler: 'migrate',
      local: true,
    },
  ],
};

const migrateSchema = z.object({
  from: z.string(),
  to: z.string(),
  marks: z.int(),
  services: z.int(),
  message: z.string(),
});

export const schemas = { stateMigrate: migrateSchema };

async function migrate(input: { values: Record<string, unknown> }, ctx: Context) {
  const raw = String(input.values.to ?? '').trim();
  if (!raw) throw new UsageError('--to needs a postgres:// URL or a folder');
  const [{ checkStateUrl, redactStateUrl }, { stateDir }, marks, pgMarks] = await Promise.all([
    import('../config/state-url.js'),
    import('../config/paths.js'),
    import('../state/marks.js'),
    import('../state/pg-marks.js'),
  ]);
  const toPg = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  const to = toPg ? checkStateUrl(raw, '--to') : path.resolve(raw);
  const fromUrl = (await ctx.settings()).stateUrl;
  const from = fromUrl ?? stateDir(ctx.env);
  if (to === (fromUrl ?? path.resolve(from))) throw new UsageError(`--to names the state in use (${fromUrl ? redactStateUrl(from) : from}): nothing to copy`);
  const records = fromUrl ? await pgMarks.readPgMarks(fromUrl) : await marks.readFolderMarks(from);
  const written = toPg ? await pgMarks.writePgMarks(to, records) : await marks.writeFolderMarks(to, records);
  const services = new Set(records.map((r) => r.service)).size;
  const shown = { from: fromUrl ? redactStateUrl(from) : from, to: toPg ? redactStateUrl(to) : to };
  return {
    kind: 'object' as const,
    value: { ...shown, marks: written, services, message: `copied ${written} mark${written === 1 ? '' : 's'} of ${services} service${services === 1 ? '' : 's'} from ${shown.from} to ${shown.to}` },
  };
}

export const handlers: Record<string, Handler> = { migrate };
