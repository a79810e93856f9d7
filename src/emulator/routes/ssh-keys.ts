// SSH keys (4096-bit RSA, made by the service).
import { listPage, type ListDef } from '../listing.js';
import { created, noContent } from '../reply.js';
import { renderSshKey } from '../render.js';
import type { RouteDef } from '../routing.js';
import type { SshKeyRecord } from '../store.js';
import { rsaPublicKeyLine, sqlDateTime } from '../util.js';
import { Validation } from '../validate.js';

const sshKeyList: ListDef<SshKeyRecord> = {
  filters: [{ param: 'modified_since', kind: 'since', get: (k) => k.updated_at }],
  sort: {
    id: (k) => k.id,
    name: (k) => k.name,
    created_at: (k) => k.created_at,
    updated_at: (k) => k.updated_at,
    last_used_at: (k) => k.last_used,
  },
};

export const sshKeyRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/ssh-keys',
    handler: ({ rt, input }) => {
      const v = new Validation(input);
      const name = v.string('name', { max: 255 });
      v.check();
      const now = rt.now();
      const id = rt.store.sshKeys.nextId();
      const key = rt.store.sshKeys.insert({
        id,
        name: name ?? `SSH key ${sqlDateTime(now)}`,
        public_key: rsaPublicKeyLine(rt.rng, `backup-service-key-${id}`),
        created_at: now,
        updated_at: now,
        last_used: null,
      });
      return created(renderSshKey(key));
    },
  },
  {
    method: 'GET',
    path: '/v1/ssh-keys',
    handler: (c) => listPage(c, c.rt.store.sshKeys, sshKeyList, renderSshKey),
  },
  {
    method: 'PATCH',
    path: '/v1/ssh-keys/{key_id}/rename',
    handler: ({ rt, params, input }) => {
      const key = rt.store.sshKeys.require(params.key_id!);
      const v = new Validation(input);
      const name = v.string('name', { required: true, max: 255 });
      v.check();
      rt.store.sshKeys.patch(key, { name: name!, updated_at: rt.now() });
      return noContent();
    },
  },
  {
    method: 'DELETE',
    path: '/v1/ssh-keys/{key_id}',
    handler: ({ rt, params }) => {
      rt.store.sshKeys.remove(rt.store.sshKeys.require(params.key_id!));
      return noContent();
    },
  },
];
