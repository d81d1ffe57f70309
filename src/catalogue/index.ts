/**
 * The catalogue: the fixed, enumerated set of actions (LACS §2.1). Anything not
 * in this list does not exist for the daemon.
 */
import type { AnyAction } from './action.js';
import * as files from './families/files.js';
import * as firewall from './families/firewall.js';
import * as kernel from './families/kernel.js';
import * as modules from './families/modules.js';
import * as netconfig from './families/netconfig.js';
import * as logging from './families/logging.js';
import * as network from './families/network.js';
import * as packages from './families/packages.js';
import * as processes from './families/processes.js';
import * as repositories from './families/repositories.js';
import * as scheduling from './families/scheduling.js';
import * as security from './families/security.js';
import * as services from './families/services.js';
import * as storage from './families/storage.js';
import * as system from './families/system.js';
import * as unitconfig from './families/unitconfig.js';
import * as volumes from './families/volumes.js';
import * as containers from './families/containers.js';
import * as diagnostics from './families/diagnostics.js';
import * as usersFamily from './families/users/index.js';
import * as sshFamily from './families/ssh/index.js';
import * as privilegeFamily from './families/privilege/index.js';
import * as identityFamily from './families/identity/index.js';

/** A family folder's explicit list as a module-like record, until index.ts takes the lists themselves. */
const folder = (f: { actions: readonly AnyAction[] }): Record<string, unknown> => Object.fromEntries(f.actions.map((a) => [a.name, a]));

const FAMILY_MODULES: Record<string, unknown>[] = [system, folder(usersFamily), folder(sshFamily), packages, kernel, folder(identityFamily), network, files, services, folder(privilegeFamily), firewall, logging, processes, scheduling, security, repositories, netconfig, modules, storage, unitconfig, volumes, containers, diagnostics];

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
