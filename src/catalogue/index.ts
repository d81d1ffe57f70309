/**
 * The catalogue: the fixed, enumerated set of actions (LACS §2.1). Anything not
 * in this list does not exist for the daemon.
 */
import type { AnyAction } from './action.js';
import * as files from './families/files.js';
import * as firewall from './families/firewall.js';
import * as identity from './families/identity.js';
import * as kernel from './families/kernel.js';
import * as locale from './families/locale.js';
import * as modules from './families/modules.js';
import * as netconfig from './families/netconfig.js';
import * as logging from './families/logging.js';
import * as network from './families/network.js';
import * as packages from './families/packages/index.js';
import * as privilege from './families/privilege.js';
import * as processes from './families/processes.js';
import * as scheduling from './families/scheduling.js';
import * as security from './families/security.js';
import * as services from './families/services.js';
import * as ssh from './families/ssh.js';
import * as sshd from './families/sshd.js';
import * as storage from './families/storage.js';
import * as system from './families/system.js';
import * as users from './families/users.js';
import * as unitconfig from './families/unitconfig.js';
import * as accounts from './families/accounts.js';
import * as volumes from './families/volumes.js';
import * as containers from './families/containers.js';
import * as diagnostics from './families/diagnostics.js';

const FAMILY_MODULES: Record<string, unknown>[] = [system, users, ssh, Object.fromEntries(packages.actions.map((a) => [a.name, a])), kernel, identity, network, files, services, privilege, firewall, logging, locale, processes, scheduling, security, sshd, netconfig, modules, storage, unitconfig, accounts, volumes, containers, diagnostics];

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
