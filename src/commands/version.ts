// `backupctl version`: what gh version and hcloud version print, for a bug
// report (`--version` stays the bare number, for scripts).
import * as z from 'zod/mini';
import type { Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { VERSION } from '../cli/startup.js';

export const module: ModuleSpec = {
  name: 'version',
  commands: [
    {
      path: ['version'],
      summary: 'Print the version of backupctl and of the Node.js running it',
      examples: ['backupctl version', 'backupctl version --json'],
      params: [],
      output: { kind: 'object', schema: 'version' },
      handler: 'version',
      local: true,
    },
  ],
};

const versionSchema = z.object({ version: z.string(), node: z.string(), platform: z.string() });

export const schemas = { version: versionSchema };

const version: Handler = async () => {
  const value = { version: VERSION, node: process.versions.node, platform: `${process.platform}-${process.arch}` };
  return { kind: 'object', value, text: `backupctl ${value.version} (Node.js ${value.node}, ${value.platform})\n` };
};

export const handlers: Record<string, Handler> = { version };
