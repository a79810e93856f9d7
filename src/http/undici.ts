// The parts of undici the client uses, and only those. undici's index loads
// fetch, WebSocket, caches and mocks too (730 KB bundled, ~45 ms of every
// start measured by bench/); the proxy-aware agent and the request API are
// 400 KB. The request API is attached to Dispatcher exactly as undici's own
// index.js does (`Object.assign(Dispatcher.prototype, api)`).
// The deep paths are undici 7's lib/ layout (package.json has no "exports"
// map); test/unit/client-pages.test.ts and every e2e test go through them.
import EnvHttpProxyAgentImpl from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import type { Dispatcher as DispatcherType, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';

Object.assign(DispatcherImpl.prototype, api);

export const EnvHttpProxyAgent = EnvHttpProxyAgentImpl as unknown as typeof EnvHttpProxyAgentType;
export type Dispatcher = DispatcherType;
