// `backupctl schema <command>`: the JSON Schema of a command's --json output, generated at
// build time from the zod schemas the command parses answers with (src/build/schemas.ts) and
// read here from dist/startup/schemas.json.gz, as the command tree is: this module does not load
// the registry (issue 25 §18).
import type { Handler } from '../contract/context.js';
import type { Manifest, ManifestCommand, ModuleSpec } from '../contract/spec.js';
import { gunzipSync } from 'node:zlib';
import { readBuiltBinary } from '../util/built-files.js';
import { UsageError } from '../errors.js';
import { readManifest } from '../cli/startup.js';
import { editDistance } from '../util/suggest.js';

export const module: ModuleSpec = {
  name: 'schema',
  commands: [
    {
      path: ['schema'],
      summary: "Print the JSON Schema of a command's --json output",
      description:
        'For a list command the schema is an array of its records. The schemas are lenient, as the CLI is: ' +
        'fields may be null or missing, and records may carry fields not listed.',
      examples: ['backupctl schema servers list', 'backupctl schema file > backups.schema.json', 'backupctl schema jobs get', 'backupctl schema jobs backup start --json > start.schema.json'],
      params: [
        { name: 'command', in: 'local', type: 'string', positional: true, required: true, complete: 'commands', description: 'The command, e.g. servers; or file, for the backups file of export, plan and apply' },
        { name: 'subcommand', in: 'local', type: 'string', positional: true, complete: 'commands', description: 'Its subcommand, e.g. list' },
        { name: 'action', in: 'local', type: 'string', positional: true, complete: 'commands', description: 'The third word of longer commands (jobs backup start)' },
      ],
      output: { kind: 'object' },
      handler: 'schema',
      local: true,
    },
  ],
};

type JsonSchema = Record<string, unknown>;

/** The command the words name (aliases of the last word too), or undefined. */
export function findCommand(manifest: Manifest, words: readonly string[]): ManifestCommand | undefined {
  const key = words.join(' ');
  return (
    manifest.commands.find((c) => c.path.join(' ') === key) ??
    manifest.commands.find(
      (c) => c.path.length === words.length && c.path.slice(0, -1).join(' ') === words.slice(0, -1).join(' ') && c.aliases?.includes(words[words.length - 1]!),
    )
  );
}

/** Commands whose name is near the words given: the group's commands, names a few edits away, or the same group's. */
export function closeMatches(manifest: Manifest, words: readonly string[], max = 6): string[] {
  const key = words.join(' ');
  const visible = manifest.commands.filter((c) => !c.hidden).map((c) => c.path.join(' '));
  const inGroup = visible.filter((c) => c.startsWith(`${key} `));
  if (inGroup.length) return inGroup.slice(0, max);
  const near = visible
    .map((c) => ({ c, d: editDistance(key, c) }))
    .filter(({ d }) => d <= Math.max(2, Math.floor(key.length / 4)))
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .map(({ c }) => c);
  if (near.length) return near.slice(0, max);
  return visible.filter((c) => c.split(' ')[0] === words[0]).slice(0, max);
}

/** The JSON Schema of the command's --json output, as the build wrote it; a UsageError when it has none. */
export function outputSchema(spec: ManifestCommand): JsonSchema {
  const name = spec.path.join(' ');
  const gz = readBuiltBinary('startup/schemas.json.gz', () => new URL('./startup/schemas.json.gz', import.meta.url));
  const schemas = JSON.parse(gunzipSync(gz).toString('utf8')) as Record<string, JsonSchema>;
  const found = spec.output.kind === 'none' ? undefined : schemas[name];
  if (found) return found;
  throw new UsageError(`${name} has no JSON output schema`, [
    spec.output.kind === 'none'
      ? 'It prints nothing on stdout (a confirmation on stderr); -q prints the id acted on.'
      : 'Its --json output is not described by a schema.',
  ]);
}

const schema: Handler = async (input, ctx) => {
  const v = input.values;
  const words = [v.command, v.subcommand, v.action].filter((w): w is string => typeof w === 'string' && w !== '');
  if (words.length === 1 && words[0] === 'file') {
    // Not a command: the backups file of export, plan and apply.
    const { backupsFileSchema } = await import('../ascode/filespec.js');
    return { kind: 'text', text: JSON.stringify(backupsFileSchema(), null, ctx.output.pretty ? 2 : undefined) };
  }
  const manifest = readManifest();
  const spec = findCommand(manifest, words);
  if (!spec || spec.hidden) {
    const close = closeMatches(manifest, words);
    throw new UsageError(`unknown command "${words.join(' ')}"`, close.length ? [`Did you mean: ${close.join(', ')}?`] : ['See backupctl --help.']);
  }
  const out = outputSchema(spec);
  return { kind: 'text', text: JSON.stringify(out, null, ctx.output.pretty ? 2 : undefined) };
};


export const handlers: Record<string, Handler> = { schema };
