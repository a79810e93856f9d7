// SSH keys: the RSA keys the service uses to reach servers.
import type { Column } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { idArg, modifiedSince, sshKeySchema } from './common.js';

export const schemas = { sshKey: sshKeySchema };

export const columns: Record<string, Column[]> = {
  sshKey: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    { key: 'created_at', header: 'Created', format: 'time' },
    { key: 'last_used', header: 'Last used', format: 'time' },
    { key: 'public_key', header: 'Public key', extra: true },
  ],
};

export const module: ModuleSpec = {
  name: 'ssh-keys',
  commands: [
    {
      path: ['ssh-keys', 'list'],
      summary: 'List SSH keys',
      examples: ['backupctl ssh-keys list', 'backupctl ssh-keys list --sort -created_at --json'],
      method: 'GET',
      endpoint: '/ssh-keys',
      params: [modifiedSince],
      list: { sort: ['id', 'name', 'created_at', 'updated_at', 'last_used_at'], whole: true },
      output: { kind: 'list', schema: 'sshKey', columns: 'sshKey' },
    },
    {
      path: ['ssh-keys', 'create'],
      summary: 'Create a 4096-bit RSA key pair on the service',
      description: 'The service generates the key; its public half is shown. Without --name the service names it by date.',
      examples: ['backupctl ssh-keys create --name deploy', 'backupctl ssh-keys create -q'],
      method: 'POST',
      endpoint: '/ssh-keys',
      params: [{ name: 'name', in: 'body', type: 'string', description: 'Name of the key' }],
      output: { kind: 'record', schema: 'sshKey', columns: 'sshKey' },
    },
    {
      path: ['ssh-keys', 'rename'],
      summary: 'Rename an SSH key',
      examples: ['backupctl ssh-keys rename 12 deploy-2026'],
      method: 'PATCH',
      endpoint: '/ssh-keys/{key_id}/rename',
      params: [
        idArg('key_id', 'SSH key', 'integer', 'ssh-keys'),
        { name: 'name', in: 'body', type: 'string', positional: true, required: true, description: 'New name' },
      ],
      output: { kind: 'none', done: 'Renamed SSH key {key_id} to {name}.' },
    },
    {
      path: ['ssh-keys', 'delete'],
      summary: 'Delete an SSH key',
      examples: ['backupctl ssh-keys delete 12', 'backupctl ssh-keys delete 12 --yes'],
      method: 'DELETE',
      endpoint: '/ssh-keys/{key_id}',
      params: [idArg('key_id', 'SSH key', 'integer', 'ssh-keys')],
      confirm: 'Delete SSH key {key_id}?',
      output: { kind: 'none', done: 'Deleted SSH key {key_id}.' },
    },
  ],
};
