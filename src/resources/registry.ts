// Every module that contributes commands, loaded only when one of its commands
// runs (the build reads them all once to write dist/manifest.json).
// Adding a resource: one file in src/resources/, one line here.
import type { Column, Handler } from '../cli/types.js';
import type { ModuleSpec } from './types.js';

export interface LoadedModule {
  module: ModuleSpec;
  handlers?: Record<string, Handler>;
  /** zod schemas of records, by name (lenient: unknown fields kept). */
  schemas?: Record<string, unknown>;
  columns?: Record<string, Column[]>;
}

export const moduleLoaders: Record<string, () => Promise<LoadedModule>> = {
  auth: () => import('../commands/auth.js'),
  profiles: () => import('../commands/profiles.js'),
  config: () => import('../commands/config.js'),
  servers: () => import('./servers.js'),
  'ssh-keys': () => import('./ssh-keys.js'),
  // emulator: () => import('../commands/emulator.js'),
};

/** One line per top-level command group, for `backupctl --help`. */
export const groups: Record<string, string> = {
  auth: 'Log in, show the login, log out',
  profiles: 'List, switch and remove profiles',
  config: 'Read and change settings of a profile',
  servers: 'Servers reached over SSH',
  'ssh-keys': 'RSA keys the service uses to reach servers',
  emulator: 'Run a local emulator of the service (no account needed)',
};
