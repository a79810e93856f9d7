// The config layer: where profiles live, the locked config file, and settings
// resolved flag > environment > profile > default. Nothing here loads conf or
// zod until a config file is actually read.
export { configDir, configFilePath, envValue, CONFIG_FILE_NAME } from './paths.js';
export { validateBaseUrl, isLoopbackHost } from './base-url.js';
export { parseDuration, DURATION_HINT } from './duration.js';
export { parseSize, SIZE_HINT } from './size.js';
export { maskToken } from './mask.js';
export { withFileLock, type LockOptions } from './lock.js';
export { openConfig, assertProfileName, exposureWarnings, DEFAULT_PROFILE, type ConfigStore } from './store.js';
export {
  resolveSettings,
  resolveProfileName,
  resolveBaseUrl,
  resolveToken,
  resolveTimeout,
  resolveOutput,
  resolveDebug,
  resolveProviderNames,
  profileSource,
  DEFAULT_TIMEOUT_MS,
  NO_BASE_URL_MESSAGE,
  type ResolveInput,
  type ResolvedBaseUrl,
  type ResolvedToken,
} from './settings.js';
export {
  type ConfigData,
  type ProfileData,
  type ProfileKey,
  type JobSettings,
  JOB_SETTING_KEYS,
  PROFILE_KEYS,
  OUTPUT_FORMATS,
  PROFILE_NAME,
  isValidProfileName,
} from './types.js';
