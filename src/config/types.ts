// Shapes of the config file (<dir>/config.json). Types only: free at start-up.
import type { OutputFormat } from '../contract/context.js';

/** Settings a profile may hold. The file rejects any other key. */
export interface ProfileData {
  base_url?: string;
  token?: string;
  output?: OutputFormat;
  /** A duration such as `30s`, or a number of seconds. */
  timeout?: string | number;
  /** Which provider names are sent: the interface's tokens (default) or the published names (issue 30). */
  provider_names?: 'neutral' | 'published';
  /**
   * The spelling the service was found to answer to, when `provider_names` is not set: probed once
   * and remembered for this base URL (src/cli/dialect.ts). Written by backupctl, not by `config set`.
   */
  detected_provider_names?: { base_url: string; provider_names: 'neutral' | 'published' };
  /** A PostgreSQL state the team shares (docs/assurance.md): marks and assurance leases kept there, keyed by service. */
  state_url?: string;
  /** Per-job settings, by the job's name or id (`config set jobs.<job>.private_key FILE`): docs/verify.md. */
  jobs?: Record<string, JobSettings>;
}

/** What a profile may hold for one job: how verify, restore-test and download decrypt its backups (src/jobs/decrypt.ts). */
export interface JobSettings {
  private_key?: string;
  private_key_pass_file?: string;
  decrypt_with?: string;
}

export const JOB_SETTING_KEYS = ['private_key', 'private_key_pass_file', 'decrypt_with'] as const;

export type ProfileKey = keyof ProfileData;

export interface ConfigData {
  current_profile?: string;
  profiles: Record<string, ProfileData>;
}

export const PROFILE_KEYS: readonly ProfileKey[] = ['base_url', 'token', 'output', 'timeout', 'provider_names'];
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'tsv'];

/** Profile names are JSON keys and appear in messages: keep them to plain words. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function isValidProfileName(name: string): boolean {
  return PROFILE_NAME.test(name);
}
