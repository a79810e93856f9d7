// Deep imports of undici's CommonJS lib/ files (see ./undici.ts).
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  const EnvHttpProxyAgent: unknown;
  export default EnvHttpProxyAgent;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: { prototype: object };
  export default Dispatcher;
}
declare module 'undici/lib/api/index.js' {
  const api: object;
  export default api;
}
declare module 'undici/lib/core/symbols.js' {
  const symbols: Record<string, symbol>;
  export default symbols;
}
