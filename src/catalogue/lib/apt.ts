/** dpkg and apt as the families read them: what is installed, and apt's own error line. */
import { AirlockError } from '../../protocol/errors.js';
import type { Host } from '../action.js';

/** The line of a package manager's stderr that says what went wrong (apt's `E:`, dnf's `Error:`), else its first. */
export function firstError(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim());
  return (lines.find((l) => /^(E|Error):/.test(l)) ?? lines[0] ?? '').slice(0, 300);
}

/** One installed package instance. rpm's carry want 'install', no essential flag and no priority (rpm has neither). */
export interface DpkgEntry {
  name: string;
  arch: string;
  version: string;
  /** Selection: install, hold, deinstall, purge, unknown. */
  want: string;
  /** installed, config-files, half-installed, not-installed, ... */
  status: string;
  essential: boolean;
  priority: string;
}

const DPKG_FORMAT = '${Package}\t${Architecture}\t${Version}\t${db:Status-Want}\t${db:Status-Status}\t${Essential}\t${Priority}\n';

export function parseDpkgEntries(stdout: string): DpkgEntry[] {
  return stdout
    .split('\n')
    .map((l) => l.split('\t'))
    .filter((f) => f.length === 7 && f[0])
    .map(([name, arch, version, want, status, essential, priority]) => ({
      name: name!,
      arch: arch!,
      version: version!,
      want: want!,
      status: status!,
      essential: essential === 'yes',
      priority: priority!,
    }));
}

/** What dpkg knows about these packages (all architectures). dpkg matches names literally; unknown names are simply absent. */
export async function dpkgEntries(host: Host, names: string[]): Promise<DpkgEntry[]> {
  if (names.length === 0) return [];
  const r = await host.run('dpkg-query', ['-W', `--showformat=${DPKG_FORMAT}`, '--', ...names]);
  // 1 = some name is unknown to dpkg, which is an answer, not a failure.
  if (r.code !== 0 && r.code !== 1) throw new AirlockError('execution', 'dpkg_query_failed', `dpkg-query failed: ${firstError(r.stderr)}`);
  return parseDpkgEntries(r.stdout);
}
