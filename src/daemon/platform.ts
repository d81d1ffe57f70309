/**
 * Detects the distribution from /etc/os-release, strictly: an unparseable file or
 * an unknown ID yields null, and a null platform gets read-only actions only.
 */
import type { Platform } from '../catalogue/action.js';
import { PLATFORMS } from '../catalogue/action.js';

export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const m = /^([A-Z0-9_]+)=("([^"\\`$]*)"|'([^']*)'|([A-Za-z0-9._:/+-]*))$/.exec(line.trim());
    if (!m) continue; // lines we cannot parse strictly are ignored, never evaluated
    out[m[1]!] = m[3] ?? m[4] ?? m[5] ?? '';
  }
  return out;
}

export function detectPlatform(osRelease: string | null): Platform | null {
  if (!osRelease) return null;
  const id = parseOsRelease(osRelease).ID ?? '';
  return (PLATFORMS as readonly string[]).includes(id) ? (id as Platform) : null;
}
