// Every module that contributes commands, loaded only when one of its commands
// runs (the build reads them all once to write dist/manifest.json).
// Adding a resource: one file in src/resources/, one line here.
import type { LoadedModule } from '../cli/types.js';

// What a module exports: in cli/types.ts, so that the modules this file loads need not import it back (issue 25 §18).
export type { LoadedModule } from '../cli/types.js';

export const moduleLoaders: Record<string, () => Promise<LoadedModule>> = {
  auth: () => import('../commands/auth.js'),
  profiles: () => import('../commands/profiles.js'),
  config: () => import('../commands/config.js'),
  servers: () => import('./servers.js'),
  'ssh-keys': () => import('./ssh-keys.js'),
  snapshots: () => import('./snapshots.js'),
  accounts: () => import('./accounts.js'),
  'snapshot-resources': () => import('./snapshot-resources.js'),
  storage: () => import('./storage.js'),
  droplets: () => import('./droplets.js'),
  volumes: () => import('./volumes.js'),
  jobs: () => import('./jobs.js'),
  'backup-files': () => import('./backup-files.js'),
  restores: () => import('./restores.js'),
  'encryption-keys': () => import('./encryption-keys.js'),
  backups: () => import('./backups.js'),
  status: () => import('../commands/status.js'),
  verify: () => import('../commands/verify.js'),
  'restore-test': () => import('../commands/restore-test.js'),
  report: () => import('../commands/report.js'),
  ascode: () => import('../commands/ascode.js'),
  api: () => import('../commands/api.js'),
  schema: () => import('../commands/schema.js'),
  completion: () => import('../commands/completion.js'),
  emulator: () => import('../commands/emulator.js'),
  version: () => import('../commands/version.js'),
};

/** One line per top-level command group, for `backupctl --help`. */
export const groups: Record<string, string> = {
  auth: 'Log in, show the login, log out',
  profiles: 'List, switch and remove profiles',
  config: 'Read and change settings of a profile',
  servers: 'Servers reached over SSH',
  'ssh-keys': 'RSA keys the service uses to reach servers',
  snapshots: 'Snapshots taken at connected cloud accounts',
  accounts: 'Cloud-provider accounts connected for snapshots',
  resources: 'Disks and servers found in connected accounts (snapshot resources)',
  storage: 'Storage destinations where backups are written',
  droplets: 'Snapshot schedules of cloud_i droplets',
  'droplets snapshot': 'Snapshots of one droplet',
  volumes: 'Snapshot schedules of cloud_i block volumes',
  'volumes snapshot': 'Snapshots of one volume',
  jobs: 'Backup jobs: what is backed up, where, and when',
  'jobs backup': 'Start, list, download and delete the backups of a job',
  'jobs encryption-key': 'Attach or detach the encryption key of a job',
  'jobs proxy': 'Attach or detach the proxy of a job',
  'jobs schedule': 'Change a schedule of a job',
  'jobs storage': 'Set the storage destinations of a job',
  restores: 'Restore jobs',
  'encryption-keys': 'Public keys that encrypt backups',
  backups: 'Single backups by id: show, delete, signed download URLs',
  status: 'Fleet health at a glance: every job, newest backup, next run',
  verify: 'Read backups back and check every file: size, sha256, gzip/tar/zip/dump structure',
  'restore-test': 'Restore a backup to prove its data comes back: SQL into a scratch database, archives extracted',
  report: 'Expected runs against actual backups: missed runs, failures, durations, sizes',
  export: 'Write the backup set-up (storage, jobs, snapshot schedules) as a YAML file',
  plan: 'Show what apply would change to make the service match a backups file',
  apply: 'Make the service match a backups file',
  api: 'Send any request to the service (like gh api)',
  schema: 'JSON Schema of a command\'s --json output',
  completion: 'Shell completion scripts (bash, zsh, fish)',
  emulator: 'Run a local emulator of the service (no account needed)',
};
