// Single backups by id (real endpoints beyond the interface, see api-facts.md).
import * as z from 'zod/mini';
import type { Column, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { columns as jobColumns } from './jobs.js';
import { backupSchema } from '../backups/record.js';

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
      // One `name<TAB>url` line per file even in a table: a table cut to the terminal's width would cut the signed URLs.
      output: { kind: 'record', schema: 'urls', columns: 'url', idField: 'url', entries: { key: 'name', value: 'url' } },
    },
  ],
};

export const handlers: Record<string, Handler> = {};
