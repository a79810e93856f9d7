// The shapes of a route and what its handler is given: shared by router.ts and routes/*.ts,
// which import these from here, not from the router that imports them (issue 25 §18: a circle).
// Not in types.ts: runtime.ts imports types.ts, and a route's context names the Runtime.
import type { Reply } from './reply.js';
import type { Runtime } from './runtime.js';
import type { Input } from './validate.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export type Query = Record<string, string | string[]>;

export interface RouteContext {
  rt: Runtime;
  /** Path parameters by the names in the route's path. */
  params: Record<string, string>;
  query: Query;
  /** Query merged with the JSON body (the body wins), as Laravel's request input. */
  input: Input;
  /** The request path, e.g. /v1/servers, for pagination links. */
  path: string;
}

export type RouteHandler = (c: RouteContext) => Reply;

export interface RouteDef {
  method: Method;
  /** As in the interface document: /v1/ssh-keys/{key_id}/rename */
  path: string;
  handler: RouteHandler;
}
