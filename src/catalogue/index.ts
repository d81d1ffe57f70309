/**
 * The catalogue: the fixed, enumerated set of actions (LACS §2.1). Anything not in
 * these lists does not exist for the daemon. Each family's folder lists its own actions
 * in its index.ts; nothing is registered by scanning exports.
 */
import type { AnyAction, Family } from './action.js';
import { actions as containers } from './families/containers/index.js';
import { actions as files } from './families/files/index.js';
import { actions as firewall } from './families/firewall/index.js';
import { actions as identity } from './families/identity/index.js';
import { actions as kernel } from './families/kernel/index.js';
import { actions as logging } from './families/logging/index.js';
import { actions as network } from './families/network/index.js';
import { actions as packages } from './families/packages/index.js';
import { actions as privilege } from './families/privilege/index.js';
import { actions as processes } from './families/processes/index.js';
import { actions as scheduling } from './families/scheduling/index.js';
import { actions as security } from './families/security/index.js';
import { actions as services } from './families/services/index.js';
import { actions as ssh } from './families/ssh/index.js';
import { actions as storage } from './families/storage/index.js';
import { actions as system } from './families/system/index.js';
import { actions as users } from './families/users/index.js';
import { actions as revert } from './families/revert/index.js';

/** Every family of FAMILIES, with its list: the type refuses a family left out. */
const BY_FAMILY: Record<Family, readonly AnyAction[]> = { system, services, users, ssh, packages, kernel, identity, network, files, privilege, firewall, logging, processes, scheduling, security, storage, containers, revert };

export const CATALOGUE: ReadonlyMap<string, AnyAction> = (() => {
  const map = new Map<string, AnyAction>();
  for (const [family, actions] of Object.entries(BY_FAMILY)) {
    for (const a of actions) {
      if (a.family !== family) throw new Error(`${a.name} is listed by the ${family} family but declares ${a.family}`);
      if (map.has(a.name)) throw new Error(`duplicate action name ${a.name}`);
      map.set(a.name, a);
    }
  }
  return map;
})();

export function findAction(name: string): AnyAction | undefined {
  return CATALOGUE.get(name);
}
