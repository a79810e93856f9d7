// The parts of undici the client uses, and only those. undici's index loads
// fetch, WebSocket, caches and mocks too (730 KB bundled, ~45 ms of every
// start measured by bench/); the proxy-aware agent and the request API are
// 400 KB. The request API is attached to Dispatcher as undici's own index.js
// does (`Object.assign(Dispatcher.prototype, api)`), its request() alone: the
// API client dispatches with a handler of its own, and the transfers and the
// cron check call request(); and connect(), which the proxy agent calls on its
// proxy's client to open an HTTPS_PROXY tunnel (CONNECT); stream, pipeline and
// upgrade are not used.
// The deep paths are undici 7's lib/ layout (package.json has no "exports"
// map); test/unit/client-pages.test.ts and every e2e test go through them.
import EnvHttpProxyAgentImpl from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
import request from 'undici/lib/api/api-request.js';
import connect from 'undici/lib/api/api-connect.js';
import symbols from 'undici/lib/core/symbols.js';
import type { Dispatcher as DispatcherType, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';

Object.assign(DispatcherImpl.prototype, { request, connect });

import { isLoopbackHost } from '../config/base-url.js';

type DispatchFn = (opts: { origin?: string | URL }, handler: unknown) => boolean;
const { kDispatch, kNoProxyAgent } = symbols as { kDispatch: symbol; kNoProxyAgent: symbol };
const ProxyAgentBase = EnvHttpProxyAgentImpl as unknown as new (opts?: object) => Record<symbol, unknown>;

/**
 * undici's EnvHttpProxyAgent (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), except that a
 * loopback host (localhost, 127.0.0.0/8, ::1) always goes direct, as in Go's
 * net/http: a request for this machine, and the token it carries, must never
 * cross a proxy (in clear text, for http://127.0.0.1). Every dispatcher of the
 * process is made from this class.
 */
class LoopbackDirectProxyAgent extends ProxyAgentBase {
  constructor(opts?: object) {
    super(opts);
    const viaEnv = (this[kDispatch] as DispatchFn).bind(this);
    const direct = this[kNoProxyAgent] as { dispatch: DispatchFn };
    this[kDispatch] = (opts: { origin?: string | URL }, handler: unknown) =>
      opts.origin !== undefined && isLoopbackHost(new URL(opts.origin).hostname) ? direct.dispatch(opts, handler) : viaEnv(opts, handler);
  }
}

export const EnvHttpProxyAgent = LoopbackDirectProxyAgent as unknown as typeof EnvHttpProxyAgentType;
export type Dispatcher = DispatcherType;
