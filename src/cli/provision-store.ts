/**
 * `airlock install --store URL`: this host's part of a fleet database. The work is store code
 * (src/store/fleet-install.ts), which the CLI never loads: it runs through the privileged entry
 * point, `airlock daemon --provision-store URL`, as a child process with an argv and no shell.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AirlockError } from '../protocol/errors.js';
import { nodeCommand } from '../sandbox/node-command.js';

export interface StoreInstallOptions {
  store: string;
  storeRole?: string;
  auditorRole?: string;
}

const here = fileURLToPath(import.meta.url);
// The daemon entry beside this module's own tree: dist/daemon/entry.js, or src/daemon/entry.ts through tsx.
const ENTRY = join(dirname(here), '..', 'daemon', 'entry.js');

/** The script (printSql), or what was done, one line each; the daemon entry's typed error as it is. */
export function provisionStore(o: StoreInstallOptions, opts: { printSql: boolean }): string[] {
  const [node, ...args] = nodeCommand(ENTRY);
  const argv = [...args, 'daemon', '--provision-store', o.store, ...(o.storeRole ? ['--store-role', o.storeRole] : []), ...(o.auditorRole ? ['--auditor-role', o.auditorRole] : []), ...(opts.printSql ? ['--print-sql'] : [])];
  try {
    const out = execFileSync(node!, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024, timeout: 120_000 });
    return opts.printSql ? [out] : out.split('\n').filter(Boolean);
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? '').trim();
    try {
      throw AirlockError.fromWire(JSON.parse(stderr.split('\n').pop()!));
    } catch (parsed) {
      if (parsed instanceof AirlockError) throw parsed;
      throw new AirlockError('execution', 'provision_failed', `the fleet database could not be set up: ${stderr || (e as Error).message}`);
    }
  }
}
