// Deep imports of undici's CommonJS lib/ files (see ./undici.ts).
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  const EnvHttpProxyAgent: unknown;
  export default EnvHttpProxyAgent;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: { prototype: object };
  export default Dispatcher;
}
declare module 'undici/lib/api/api-request.js' {
  const request: (...args: unknown[]) => unknown;
  export default request;
}
declare module 'undici/lib/core/symbols.js' {
  const symbols: Record<string, symbol>;
  export default symbols;
}
declare module 'undici/lib/api/api-connect.js' {
  const connect: (...args: unknown[]) => unknown;
  export default connect;
}
