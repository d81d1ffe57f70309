/**
 * Airlock's version, as `airlock --version` and the man page print it: the package.json beside
 * the code (the checkout's, or the one a Debian package installs with its own version, set by
 * scripts/package.ts). One small file read at start.
 */
import { readFileSync } from 'node:fs';

export function airlockVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    if (typeof version === 'string' && version) return version;
  } catch {
    // A copy without its package.json still answers, as unknown.
  }
  return 'unknown';
}
