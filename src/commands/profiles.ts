// profiles list | use | remove: the named profiles in the config file.
import * as z from 'zod/mini';
import type { Column, Context, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { openContextConfig } from '../cli/context.js';
import { UsageError } from '../errors.js';
import { DEFAULT_PROFILE, type ConfigStore } from '../config/index.js';

export const module: ModuleSpec = {
  name: 'profiles',
  commands: [
    {
      path: ['profiles', 'list'],
      summary: 'List the profiles in the config file',
      examples: ['backupctl profiles list', 'backupctl profiles list --json'],
      params: [],
      output: { kind: 'list', schema: 'profile', idField: 'name' },
      handler: 'list',
      local: true,
    },
    {
      path: ['profiles', 'use'],
      summary: 'Make a profile the current one',
      examples: ['backupctl profiles use work'],
      params: [
        { name: 'name', in: 'local', type: 'string', positional: true, required: true, complete: 'profiles', description: 'Profile name' },
      ],
      output: { kind: 'none', done: 'Switched to profile {name}', idField: 'name' },
      handler: 'use',
      local: true,
    },
    {
      path: ['profiles', 'remove'],
      summary: 'Remove a profile and its stored token',
      examples: ['backupctl profiles remove old', 'backupctl profiles remove old --yes'],
      params: [
        { name: 'name', in: 'local', type: 'string', positional: true, required: true, complete: 'profiles', description: 'Profile name' },
      ],
      output: { kind: 'none', done: 'Removed profile {name}', idField: 'name' },
      handler: 'remove',
      local: true,
    },
  ],
};

/** One profile in `profiles list --json`: whether a token is stored, never the token. */
const profileSchema = z.object({ name: z.string(), current: z.boolean(), base_url: z.nullable(z.string()), token_set: z.boolean() });

export const schemas = { profile: profileSchema };

const PROFILE_COLUMNS: Column[] = [
  { key: 'name', header: 'Name' },
  { key: 'current', header: 'Current', format: 'bool' },
  { key: 'base_url', header: 'Base URL', get: (r) => r.base_url ?? '' },
  { key: 'token_set', header: 'Token set', format: 'bool' },
];

function openStore(ctx: Context): Promise<ConfigStore> {
  return openContextConfig(ctx);
}

function unknownProfile(store: ConfigStore, name: string): UsageError {
  const names = store.profileNames();
  return new UsageError(`no profile named ${JSON.stringify(name)}`, [
    names.length ? `  Profiles: ${names.join(', ')}` : `  There are no profiles yet in ${store.file}.`,
  ]);
}

async function* onePage<T>(records: T[]): AsyncIterable<T[]> {
  yield records;
}

const list: Handler = async (_input, ctx) => {
  const store = await openStore(ctx);
  const current = store.currentProfile();
  // Never the token itself: only whether one is stored.
  const records = store.profileNames().map((name) => {
    const p = store.profile(name);
    return { name, current: name === current, base_url: p.base_url ?? null, token_set: p.token !== undefined };
  });
  return { kind: 'list', pages: onePage(records), columns: PROFILE_COLUMNS, idField: 'name' };
};

const use: Handler = async (input, ctx) => {
  const name = String(input.values.name);
  const store = await openStore(ctx);
  if (name !== DEFAULT_PROFILE && !store.hasProfile(name)) throw unknownProfile(store, name);
  await store.setCurrent(name);
  return { kind: 'done', message: `Switched to profile ${name}.`, id: name };
};

const remove: Handler = async (input, ctx) => {
  const name = String(input.values.name);
  const store = await openStore(ctx);
  if (!store.hasProfile(name)) throw unknownProfile(store, name);
  const token = store.profile(name).token !== undefined ? ' and its stored token' : '';
  if (!ctx.globals.yes && !(await ctx.confirm(`Remove profile ${name}${token}?`))) {
    return { kind: 'done', message: `Kept profile ${name}.` };
  }
  const wasCurrent = store.currentProfile() === name;
  await store.removeProfile(name);
  const after = wasCurrent ? ` The current profile is now ${DEFAULT_PROFILE}.` : '';
  return { kind: 'done', message: `Removed profile ${name}.${after}`, id: name };
};

export const handlers: Record<string, Handler> = { list, use, remove };
