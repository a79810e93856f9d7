// undici is CommonJS: a static import here gets esbuild's named-export
// interop, which a dynamic import('undici') in a split ESM bundle does not.
// Everything that needs undici imports this module lazily.
export { request, EnvHttpProxyAgent } from 'undici';
export type { Dispatcher } from 'undici';
