// Restore jobs: listed and shown (the service offers no way to create one through the interface).
import * as z from 'zod/mini';
import type { Column, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { datetime, record, serverSchema } from './common.js';

const fileSchema = record({ id: z.nullish(z.union([z.string(), z.number()])), name: z.string(), size: z.nullish(z.union([z.string(), z.number()])), url: z.nullish(z.string()) });

const restoreSchema = record({
  id: z.string(),
  job_id: z.nullish(z.string()),
  backup_id: z.nullish(z.string()),
  compute: z.nullish(record({ id: z.nullish(z.number()), type: z.nullish(z.string()), server: z.nullish(serverSchema) })),
  status: z.nullish(z.string()),
  created_at: z.nullish(datetime),
  started_at: z.nullish(datetime),
  completed_at: z.nullish(datetime),
  files: z.nullish(z.array(fileSchema)),
});

export const schemas = { restore: restoreSchema };

export const columns: Record<string, Column[]> = {
  restore: [
    { key: 'id', header: 'ID' },
    { key: 'job_id', header: 'Job' },
    { key: 'backup_id', header: 'Backup' },
    { key: 'status', header: 'Status', format: 'status' },
    { key: 'compute', header: 'Compute', get: (r) => r.compute?.server?.name ?? r.compute?.type, extra: true },
    { key: 'created_at', header: 'Created', format: 'time' },
    { key: 'completed_at', header: 'Completed', format: 'time' },
  ],
  file: [
    { key: 'name', header: 'Name' },
    { key: 'size', header: 'Size', format: 'size' },
    { key: 'url', header: 'URL' },
  ],
};

export const module: ModuleSpec = {
  name: 'restores',
  commands: [
    {
      path: ['restores', 'list'],
      summary: 'List restore jobs',
      examples: ['backupctl restores list', 'backupctl restores list --status failed --json'],
      method: 'GET',
      endpoint: '/restore-jobs',
      params: [{ name: 'status', in: 'query', type: 'enum', values: ['pending', 'running', 'failed', 'completed'], description: 'Only restore jobs with this status' }],
      list: {},
      output: { kind: 'list', schema: 'restore', columns: 'restore' },
    },
    {
      path: ['restores', 'get'],
      summary: 'Show a restore job and its files',
      examples: ['backupctl restores get 7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'],
      method: 'GET',
      endpoint: '/restore-jobs/{restore_job_id}',
      params: [{ name: 'restore_job_id', flag: 'id', in: 'path', type: 'uuid', positional: true, required: true, complete: 'restores', description: 'Restore job id' }],
      output: { kind: 'record', schema: 'restore', columns: 'restore', sections: [{ title: 'Files', field: 'files', columns: 'file' }] },
    },
  ],
};

export const handlers: Record<string, Handler> = {};
