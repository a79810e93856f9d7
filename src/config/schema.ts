// Validation of the config file's content. zod is loaded only when a config
// file is read or written, never at start-up.
import type { ConfigData } from './types.js';
import { OUTPUT_FORMATS, PROFILE_NAME } from './types.js';

export type ConfigCheck = { ok: true; data: ConfigData } | { ok: false; problems: string[] };

let checker: Promise<(value: unknown) => ConfigCheck> | undefined;

/** A function that checks parsed JSON against the config shape, strictly (unknown keys are errors). */
export function loadConfigChecker(): Promise<(value: unknown) => ConfigCheck> {
  checker ??= import('zod').then(({ z }) => {
    const profile = z.strictObject({
      base_url: z.string().optional(),
      token: z.string().optional(),
      output: z.enum(OUTPUT_FORMATS as [string, ...string[]]).optional(),
      timeout: z
        .union([z.string(), z.number()], { error: 'expected a duration such as "30s" or a number of seconds' })
        .optional(),
    });
    const nameRule = 'profile names are letters, digits, ".", "_" and "-"';
    const name = z.string().regex(PROFILE_NAME, nameRule);
    const file = z.strictObject({
      current_profile: name.optional(),
      profiles: z.record(name, profile).optional(),
    });
    return (value: unknown): ConfigCheck => {
      const r = file.safeParse(value);
      if (r.success) {
        const data: ConfigData = { profiles: (r.data.profiles ?? {}) as ConfigData['profiles'] };
        if (r.data.current_profile !== undefined) data.current_profile = r.data.current_profile;
        return { ok: true, data };
      }
      return {
        ok: false,
        problems: r.error.issues.map((issue) => {
          const where = issue.path.length ? issue.path.map(String).join('.') : 'top level';
          if (issue.code === 'invalid_key') return `${where}: invalid profile name (${nameRule})`;
          return `${where}: ${issue.message}`;
        }),
      };
    };
  });
  return checker;
}
