/**
 * The catalogue: the fixed, enumerated set of actions (LACS §2.1). Anything not
 * in this list does not exist for the daemon.
 */
import type { AnyAction } from './action.js';
import * as firewall from './families/firewall.js';
import * as identity from './families/identity.js';
import * as kernel from './families/kernel.js';
import * as locale from './families/locale.js';
import * as modules from './families/modules.js';
import * as netconfig from './families/netconfig.js';
import * as network from './families/network.js';
import * as packages from './families/packages.js';
import * as privilege from './families/privilege.js';
import * as repositories from './families/repositories.js';
import * as security from './families/security.js';
import * as ssh from './families/ssh.js';
import * as sshd from './families/sshd.js';
import * as storage from './families/storage.js';
import * as system from './families/system.js';
import * as users from './families/users.js';
import * as accounts from './families/accounts.js';
import * as volumes from './families/volumes.js';
import * as diagnostics from './families/diagnostics.js';
import { actions as containersActions } from './families/containers/index.js';
import { actions as filesActions } from './families/files/index.js';
import { actions as loggingActions } from './families/logging/index.js';
import { actions as processesActions } from './families/processes/index.js';
import { actions as schedulingActions } from './families/scheduling/index.js';
import { actions as servicesActions } from './families/services/index.js';

/** A family folder's explicit action list, in the shape of the modules not yet moved into folders (keyed by position, so a duplicate still throws below). */
const folder = (actions: readonly AnyAction[]): Record<string, unknown> => ({ ...actions });

const FAMILY_MODULES: Record<string, unknown>[] = [system, users, ssh, packages, kernel, identity, network, folder(filesActions), folder(servicesActions), privilege, firewall, folder(loggingActions), locale, folder(processesActions), folder(schedulingActions), security, repositories, sshd, netconfig, modules, storage, accounts, volumes, folder(containersActions), diagnostics];

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
