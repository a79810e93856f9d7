// Accounts connected at cloud providers (/v1/snapshots/accounts).
import { listPage, type ListDef } from '../listing.js';
import { created, noContent } from '../reply.js';
import { renderAccount } from '../render.js';
import type { RouteDef } from '../routing.js';
import type { Runtime } from '../runtime.js';
import { ACCOUNT_PROVIDERS, type AccountProvider, type AccountRecord } from '../store.js';
import { Validation } from '../validate.js';

/** Which credential keys each provider requires, from the interface's table. */
export const REQUIRED_CREDENTIALS: Readonly<Record<AccountProvider, readonly string[]>> = {
  cloud_a: ['key', 'secret', 'region'],
  cloud_b: ['key', 'secret', 'region'],
  cloud_c: ['key', 'secret'],
  cloud_d: ['secret'],
  cloud_e: ['key', 'zone'],
  cloud_f: ['username', 'password'],
  cloud_g: ['key', 'secret', 'region'],
  cloud_h: ['key'],
};

const CREDENTIAL_KEYS = ['key', 'secret', 'region', 'zone', 'username', 'password'] as const;

const accountList: ListDef<AccountRecord> = {
  filters: [
    { param: 'provider', kind: 'enum', values: ACCOUNT_PROVIDERS, matches: (a, p) => a.provider === p },
    { param: 'modified_since', kind: 'since', get: (a) => a.updated_at },
  ],
  sort: {
    id: (a) => a.id,
    name: (a) => a.name,
    expires_at: (a) => a.expires_at,
    created_at: (a) => a.created_at,
    updated_at: (a) => a.updated_at,
  },
};

/** Reads the credential strings; on creation the provider's keys are required. */
function readCredentials(v: Validation, required: readonly string[]): Record<string, string> {
  const credentials: Record<string, string> = {};
  for (const key of CREDENTIAL_KEYS) {
    const value = v.string(`credentials.${key}`, { required: required.includes(key) });
    if (value !== undefined) credentials[key] = value;
  }
  return credentials;
}

/** Snapshots and resources are filtered by their account's provider: their cached views depend on accounts. */
function accountsChanged(rt: Runtime): void {
  rt.store.snapshots.changed();
  rt.store.resources.changed();
}

export const accountRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/snapshots/accounts',
    handler: ({ rt, input }) => {
      const v = new Validation(input);
      const name = v.string('name', { required: true, max: 255 });
      const provider = v.string('provider', { required: true, oneOf: ACCOUNT_PROVIDERS }) as AccountProvider | undefined;
      const given = v.object('credentials', { required: true });
      const credentials = given ? readCredentials(v, provider ? REQUIRED_CREDENTIALS[provider] : []) : {};
      v.check();
      const now = rt.now();
      const account = rt.store.accounts.insert({
        id: rt.store.accounts.nextId(),
        name: name!,
        provider: provider!,
        credentials,
        expires_at: null,
        created_at: now,
        updated_at: now,
      });
      return created(renderAccount(account, { withProvider: false }));
    },
  },
  {
    method: 'GET',
    path: '/v1/snapshots/accounts',
    handler: (c) => listPage(c, c.rt.store.accounts, accountList, (a) => renderAccount(a, { withProvider: true })),
  },
  {
    method: 'PATCH',
    path: '/v1/snapshots/accounts/{account_id}',
    handler: ({ rt, params, input }) => {
      const account = rt.store.accounts.require(params.account_id!);
      const v = new Validation(input);
      const name = v.string('name', { max: 255 });
      const provider = v.string('provider', { oneOf: ACCOUNT_PROVIDERS }) as AccountProvider | undefined;
      const given = v.object('credentials');
      const credentials = given ? readCredentials(v, []) : {};
      v.check();
      rt.store.accounts.patch(account, {
        name: name ?? account.name,
        provider: provider ?? account.provider,
        credentials: { ...account.credentials, ...credentials },
        updated_at: rt.now(),
      });
      accountsChanged(rt);
      return noContent();
    },
  },
  {
    method: 'DELETE',
    path: '/v1/snapshots/accounts/{account_id}',
    handler: ({ rt, params }) => {
      const account = rt.store.accounts.require(params.account_id!);
      rt.store.accounts.remove(account);
      // What was found through the account goes with it.
      rt.store.snapshots.removeWhere((s) => s.account_id === account.id);
      rt.store.resources.removeWhere((r) => r.account_id === account.id);
      accountsChanged(rt);
      return noContent();
    },
  },
  {
    method: 'PATCH',
    path: '/v1/snapshots/accounts/{account_id}/sync',
    handler: ({ rt, params }) => {
      const account = rt.store.accounts.require(params.account_id!);
      const now = rt.now();
      rt.store.accounts.patch(account, { updated_at: now });
      for (const resource of rt.store.resources.rows) {
        if (resource.account_id === account.id) rt.store.resources.patch(resource, { last_synced_at: now, updated_at: now });
      }
      accountsChanged(rt);
      return noContent();
    },
  },
];
