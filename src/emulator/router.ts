// The single route table of the API: every endpoint the emulator serves, with
// paths written as in the interface document, and the matcher over it.
import type { RouteDef } from './routing.js';
import { accountRoutes } from './routes/accounts.js';
import { backupRoutes } from './routes/backups.js';
import { cloudIRoutes } from './routes/cloud-i.js';
import { encryptionKeyRoutes } from './routes/encryption-keys.js';
import { jobRoutes } from './routes/jobs.js';
import { resourceRoutes } from './routes/resources.js';
import { restoreJobRoutes } from './routes/restore-jobs.js';
import { serverRoutes } from './routes/servers.js';
import { snapshotRoutes } from './routes/snapshots.js';
import { sshKeyRoutes } from './routes/ssh-keys.js';
import { storageRoutes } from './routes/storage.js';


const ROUTE_TABLE: readonly RouteDef[] = [
  ...serverRoutes,
  ...sshKeyRoutes,
  ...snapshotRoutes,
  ...accountRoutes,
  ...resourceRoutes,
  ...storageRoutes,
  ...cloudIRoutes,
  ...jobRoutes,
  ...backupRoutes,
  ...restoreJobRoutes,
  ...encryptionKeyRoutes,
];

/** What the emulator serves, for coverage checks against the interface. */
export function emulatorRoutes(): Array<{ method: string; path: string }> {
  return ROUTE_TABLE.map(({ method, path }) => ({ method, path }));
}

interface CompiledRoute extends RouteDef {
  pattern: RegExp;
  names: string[];
  /** More literal segments win: /v1/snapshots/accounts before /v1/snapshots/{snapshot_id}. */
  literals: number;
}

export type RouteMatch =
  | { kind: 'found'; route: RouteDef; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

function compile(def: RouteDef): CompiledRoute {
  const names: string[] = [];
  const source = def.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]!);
      return '([^/]+)';
    })
    .join('/');
  return {
    ...def,
    pattern: new RegExp(`^${source}/?$`),
    names,
    literals: def.path.split('/').filter((s) => s && !s.startsWith('{')).length,
  };
}

const COMPILED: readonly CompiledRoute[] = ROUTE_TABLE.map(compile).sort((a, b) => b.literals - a.literals);

export function matchRoute(method: string, path: string): RouteMatch {
  const wanted = method === 'HEAD' ? 'GET' : method;
  const allowed = new Set<string>();
  for (const route of COMPILED) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    if (route.method === wanted) {
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]!);
      });
      return { kind: 'found', route, params };
    }
    allowed.add(route.method);
  }
  if (allowed.size === 0) return { kind: 'not-found' };
  if (allowed.has('GET')) allowed.add('HEAD');
  return { kind: 'method-not-allowed', allowed: [...allowed] };
}
