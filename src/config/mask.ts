/**
 * A token as it may be shown: `****` and its last 4 characters at most.
 * Short tokens show no characters at all, since 4 of them would be too large
 * a share of the secret.
 */
export function maskToken(token: string | undefined): string {
  if (!token) return '(none)';
  return token.length < 12 ? '****' : `****${token.slice(-4)}`;
}
