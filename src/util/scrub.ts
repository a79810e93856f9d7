// Last line of defence: any text main.ts prints for an error passes through
// scrub(), which blanks every secret the process has seen (the token, secret
// flag values). The first line of defence is not putting them in messages.
const secrets = new Set<string>();

export function addSecret(value: unknown): void {
  if (typeof value === 'string' && value.length >= 4) secrets.add(value);
}

export function scrub(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('****');
  return out;
}
