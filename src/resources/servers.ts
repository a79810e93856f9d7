// Servers reached over SSH.
import * as z from 'zod/mini';
import type { Column, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { modifiedSince, record, serverSchema } from './common.js';

/** The answer of GET /servers/code: the shell line to run on the server. */
const codeSchema = record({ code: z.string() });

export const schemas = { server: serverSchema, code: codeSchema };

export const columns: Record<string, Column[]> = {
  server: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    { key: 'host', header: 'Host' },
    { key: 'port', header: 'Port' },
    { key: 'user', header: 'User' },
    { key: 'status', header: 'Status', format: 'status' },
    { key: 'key', header: 'Key', get: (s) => s.key?.name ?? s.key?.id },
    { key: 'last_used', header: 'Last used', format: 'time' },
    { key: 'created_at', header: 'Created', format: 'time', extra: true },
  ],
};

export const module: ModuleSpec = {
  name: 'servers',
  commands: [
    {
      path: ['servers', 'list'],
      summary: 'List servers',
      examples: ['backupctl servers list', 'backupctl servers list --name web --sort -last_used_at', 'backupctl servers list --all -o ndjson'],
      method: 'GET',
      endpoint: '/servers',
      params: [
        { name: 'name', in: 'query', type: 'string', description: 'Only servers whose name is like this' },
        { name: 'host', in: 'query', type: 'string', description: 'Only servers with this host' },
        modifiedSince,
      ],
      list: { sort: ['id', 'host', 'name', 'created_at', 'last_used_at'], whole: true },
      output: { kind: 'list', schema: 'server', columns: 'server' },
    },
    {
      path: ['servers', 'add'],
      summary: 'Connect a server over SSH',
      description: 'Run `backupctl servers code --key <key-id>` on the server first so the service can log in with that key.',
      examples: ['backupctl servers add --name web-1 --host 203.0.113.10 --user root --key 12', 'backupctl servers add --name db --host db.example.com --port 2222 --user backup --key 12 -q'],
      method: 'POST',
      endpoint: '/servers',
      params: [
        { name: 'name', in: 'body', type: 'string', required: true, description: 'Name of the server' },
        { name: 'ssh_host', flag: 'host', in: 'body', type: 'string', required: true, description: 'Address of the server' },
        { name: 'ssh_port', flag: 'port', in: 'body', type: 'integer', min: 1, max: 65535, wire: 'string', default: 22, description: 'SSH port' },
        { name: 'ssh_user', flag: 'user', in: 'body', type: 'string', required: true, description: 'SSH user' },
        { name: 'ssh_key', flag: 'key', in: 'body', type: 'integer', min: 1, required: true, placeholder: 'key', description: 'The SSH key the service logs in with (id or name)', names: 'ssh-keys' },
      ],
      // ssh_port: --port defaults to 22, and the service requires it.
      body: { required: ['ssh_port'] },
      successStatus: 200,
      output: { kind: 'record', schema: 'server', columns: 'server' },
    },
    {
      path: ['servers', 'code'],
      summary: 'Print the shell line that installs an SSH key on a server',
      description: 'Run the printed line on the server. It holds a one-time token: do not share it.',
      examples: ['backupctl servers code --key 12', 'backupctl servers code --key 12 | ssh root@203.0.113.10 sh'],
      method: 'GET',
      endpoint: '/servers/code',
      params: [{ name: 'key_id', flag: 'key', in: 'query', type: 'integer', min: 1, required: true, placeholder: 'key', description: 'The SSH key to install (id or name)', names: 'ssh-keys' }],
      // The `code` line alone, so it can be piped to a shell (-q and tsv included); --json keeps the whole answer.
      output: { kind: 'object', schema: 'code', textField: 'code' },
    },
  ],
};

export const handlers: Record<string, Handler> = {};
