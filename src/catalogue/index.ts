/**
 * The catalogue: the fixed, enumerated set of actions (LACS §2.1). Anything not
 * in this list does not exist for the daemon.
 */
import type { AnyAction } from './action.js';
import * as firewall from './families/firewall/index.js';
import * as identity from './families/identity.js';
import * as kernel from './families/kernel/index.js';
import * as locale from './families/locale.js';
import * as network from './families/network/index.js';
import * as packages from './families/packages/index.js';
import * as privilege from './families/privilege.js';
import * as security from './families/security/index.js';
import * as ssh from './families/ssh.js';
import * as sshd from './families/sshd.js';
import * as storage from './families/storage/index.js';
import * as system from './families/system/index.js';
import * as users from './families/users.js';
import * as accounts from './families/accounts.js';
import * as containers from './families/containers/index.js';
import * as files from './families/files/index.js';
import * as logging from './families/logging/index.js';
import * as processes from './families/processes/index.js';
import * as scheduling from './families/scheduling/index.js';
import * as services from './families/services/index.js';

/** A family folder's explicit list, in the shape of the old one-file modules until index.ts is rewritten. */
const listed = (folder: { actions: readonly AnyAction[] }): Record<string, unknown> => ({ ...folder.actions });

const FAMILY_MODULES: Record<string, unknown>[] = [listed(system), users, ssh, listed(packages), listed(kernel), identity, listed(network), listed(files), listed(services), privilege, listed(firewall), listed(logging), locale, listed(processes), listed(scheduling), listed(security), sshd, listed(storage), accounts, listed(containers)];

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
