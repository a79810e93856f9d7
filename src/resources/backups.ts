// Single backups by id (real endpoints beyond the interface, see api-facts.md).
import * as z from 'zod/mini';
import type { Column, Handler } from '../cli/types.js';
import type { ModuleSpec } from './types.js';
import { backupSchema, columns as jobColumns } from './jobs.js';
import { tsvField } from '../output/format.js';

/** The data of POST /backups/{id}/download: a signed URL by file name. */
const urlsSchema = z.record(z.string(), z.string());

export const schemas = { backup: backupSchema, urls: urlsSchema };

export const columns: Record<string, Column[]> = {
  backup: jobColumns.backup!,
  file: jobColumns.file!,
  url: [
    { key: 'name', header: 'Name' },
    { key: 'url', header: 'URL' },
  ],
};

const idArg = { name: 'backup_id', flag: 'id', in: 'path', type: 'uuid', positional: true, required: true, complete: 'backups', description: 'Backup id' } as const;
const EX = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

export const module: ModuleSpec = {
  name: 'backups',
  commands: [
    {
      path: ['backups', 'get'],
      summary: 'Show a backup and its files',
      examples: [`backupctl backups get ${EX}`],
      method: 'GET',
      endpoint: '/backups/{backup_id}',
      params: [idArg],
      output: { kind: 'record', schema: 'backup', columns: 'backup', sections: [{ title: 'Files', field: 'files', columns: 'file' }] },
    },
    {
      path: ['backups', 'delete'],
      summary: 'Delete a backup',
      examples: [`backupctl backups delete ${EX} --yes`],
      method: 'DELETE',
      endpoint: '/backups/{backup_id}',
      params: [idArg],
      confirm: 'Delete backup {backup_id}?',
      output: { kind: 'none', done: 'Deleted backup {backup_id}.' },
    },
    {
      path: ['backups', 'urls'],
      summary: 'Print signed download URLs of the files of a backup (valid about an hour)',
      examples: [`backupctl backups urls ${EX}`, `backupctl backups urls ${EX} --json`],
      method: 'POST',
      endpoint: '/backups/{backup_id}/download',
      params: [idArg],
      successStatus: 200,
      output: { kind: 'record', schema: 'urls', columns: 'url', idField: 'url' },
      handler: 'urls',
    },
  ],
};

/**
 * {data: {name: url}}: --json prints exactly data. Elsewhere one `name<TAB>url` line
 * per file, even in table mode: a table cut to the terminal's width would cut the
 * signed URLs, which are the whole point of the command.
 */
const urls: Handler = async (input, ctx) => {
  const client = await ctx.client();
  const res = await client.request(input.request!, { signal: ctx.signal });
  const data = ((res.body as { data?: Record<string, unknown> } | undefined)?.data ?? {}) as Record<string, unknown>;
  if (ctx.output.format === 'json') return { kind: 'object', value: data };
  const rows = Object.entries(data).map(([name, url]) => ({ name, url: typeof url === 'string' ? url : JSON.stringify(url) }));
  if (ctx.output.format === 'table' && !ctx.output.quiet && !ctx.output.columns) {
    return { kind: 'text', text: rows.map((r) => `${tsvField(r.name)}\t${tsvField(r.url)}\n`).join('') };
  }
  return { kind: 'list', pages: (async function* () { yield rows; })(), columns: columns.url!, idField: 'url' };
};

export const handlers: Record<string, Handler> = { urls };
