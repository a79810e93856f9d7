// Types of pack-install.mjs for the tests that import it.
export function withoutNpmVars(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
export function packAndInstall(opts: {
  sources: string;
  work: string;
  env?: NodeJS.ProcessEnv;
  ignoreScripts?: boolean;
}): Promise<{ packOutput: string; prefix: string; installed: string }>;
export function bytesUnder(dir: string): number;
