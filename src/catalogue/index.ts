/**
 * The catalogue: the fixed, enumerated set of actions (LACS §2.1). Anything not
 * in this list does not exist for the daemon.
 */
import type { AnyAction } from './action.js';
import * as files from './families/files.js';
import * as firewall from './families/firewall/index.js';
import * as identity from './families/identity.js';
import * as kernel from './families/kernel/index.js';
import * as locale from './families/locale.js';
import * as logging from './families/logging.js';
import * as network from './families/network/index.js';
import * as packages from './families/packages.js';
import * as privilege from './families/privilege.js';
import * as processes from './families/processes.js';
import * as repositories from './families/repositories.js';
import * as scheduling from './families/scheduling.js';
import * as security from './families/security/index.js';
import * as services from './families/services.js';
import * as ssh from './families/ssh.js';
import * as sshd from './families/sshd.js';
import * as storage from './families/storage/index.js';
import * as system from './families/system/index.js';
import * as users from './families/users.js';
import * as unitconfig from './families/unitconfig.js';
import * as accounts from './families/accounts.js';
import * as containers from './families/containers.js';
import * as diagnostics from './families/diagnostics.js';

/** A family folder's explicit list, in the shape of the old one-file modules until index.ts is rewritten. */
const listed = (folder: { actions: readonly AnyAction[] }): Record<string, unknown> => Object.fromEntries(folder.actions.map((a) => [a.name, a]));

const FAMILY_MODULES: Record<string, unknown>[] = [listed(system), users, ssh, packages, listed(kernel), identity, listed(network), files, services, privilege, listed(firewall), logging, locale, processes, scheduling, listed(security), repositories, sshd, listed(storage), unitconfig, accounts, containers, diagnostics];

const isAction = (a: unknown): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a && 'name' in a;

export const CATALOGUE: ReadonlyMap<string, AnyAction> = (() => {
  const map = new Map<string, AnyAction>();
  for (const mod of FAMILY_MODULES) {
    for (const a of Object.values(mod)) {
      if (!isAction(a)) continue;
      if (map.has(a.name)) throw new Error(`duplicate action name ${a.name}`);
      map.set(a.name, a);
    }
  }
  return map;
})();

export function findAction(name: string): AnyAction | undefined {
  return CATALOGUE.get(name);
}
