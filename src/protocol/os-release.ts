/**
 * /etc/os-release, parsed, never evaluated: a line is `KEY=value` with a plain, a
 * double-quoted (no `$`, backquote or backslash) or a single-quoted value, or it is
 * ignored. Shared by the daemon (which platform this is) and the planner (what it
 * tells a model about the host), so both read the file the same strict way.
 */
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

/** Lines that assign `key`, parseable or not: an ID given twice (or once unparseably and once plainly) is ambiguous. */
export const assignments = (text: string, key: string) => text.split('\n').filter((l) => l.trim().startsWith(`${key}=`)).length;
