// Servers reached over SSH.
import { listPage, type ListDef } from '../listing.js';
import { ok, okData } from '../reply.js';
import { renderServer } from '../render.js';
import type { RouteDef } from '../routing.js';
import type { ServerRecord } from '../store.js';
import { randomBytesFrom } from '../util.js';
import { Validation } from '../validate.js';

const serverList: ListDef<ServerRecord> = {
  filters: [
    { param: 'name', kind: 'similar', get: (s) => s.name },
    { param: 'host', kind: 'exact', get: (s) => s.host },
    { param: 'modified_since', kind: 'since', get: (s) => s.updated_at },
  ],
  sort: {
    id: (s) => s.id,
    host: (s) => s.host,
    name: (s) => s.name,
    created_at: (s) => s.created_at,
    last_used_at: (s) => s.last_used,
  },
};

export const serverRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/servers',
    handler: ({ rt, input }) => {
      const v = new Validation(input);
      const name = v.string('name', { required: true, max: 255 });
      const host = v.string('ssh_host', { required: true, max: 255 });
      // The service wants the port as a string and refuses a JSON number.
      const portText = v.string('ssh_port', { required: true });
      if (portText !== undefined && !/^\d+$/.test(portText)) v.fail('ssh_port', 'The ssh port field must be a number.');
      else if (portText !== undefined && (Number(portText) < 1 || Number(portText) > 65535))
        v.fail('ssh_port', 'The ssh port field must be between 1 and 65535.');
      const user = v.string('ssh_user', { required: true, max: 255 });
      const keyId = v.integer('ssh_key', { required: true });
      if (keyId !== undefined) v.exists('ssh_key', rt.store.sshKeys.get(keyId) !== undefined);
      v.check();
      const now = rt.now();
      const server = rt.store.servers.insert({
        id: rt.store.servers.nextId(),
        name: name!,
        host: host!,
        user: user!,
        port: Number(portText),
        key_id: keyId!,
        status: 'success',
        created_at: now,
        updated_at: now,
        last_used: null,
      });
      // 200, not 201: a quirk of the real service.
      return okData(renderServer(rt, server));
    },
  },
  {
    method: 'GET',
    path: '/v1/servers/code',
    handler: ({ rt, input }) => {
      const v = new Validation(input);
      const keyId = v.integer('key_id');
      if (keyId !== undefined) v.exists('key_id', rt.store.sshKeys.get(keyId) !== undefined);
      v.check();
      const key = keyId !== undefined ? rt.store.sshKeys.get(keyId) : rt.store.sshKeys.rows[0];
      const installToken = randomBytesFrom(rt.rng, 20).toString('hex');
      const keyPart = key ? `&key=${key.id}` : '';
      return ok({ code: `curl -sSL "${rt.baseUrl}/install.sh?token=${installToken}${keyPart}" | sudo bash` });
    },
  },
  {
    method: 'GET',
    path: '/v1/servers',
    handler: (c) => listPage(c, c.rt.store.servers, serverList, (s) => renderServer(c.rt, s)),
  },
];
