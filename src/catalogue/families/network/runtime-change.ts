/**
 * What the runtime changes through `ip` share (AddAddress, RemoveAddress, AddRoute, RemoveRoute,
 * SetLinkState): they change the kernel's live state only, which is lost at reboot, and they
 * refuse what would cut the host off. `ip` takes no `--` after its object (it answers
 * "garbage"), so operands always follow a keyword (dev, via) or are validated addresses that
 * never start with '-'.
 */
import { isIP } from 'node:net';
import { AirlockError } from '../../../protocol/errors.js';
import type { NetState } from './ip-state.js';

export const RUNTIME_ONLY = 'runtime state only: lost at reboot (persistent network configuration is out of scope)';

/** lo: every local service depends on it. */
export function refuseLoopback(name: string): void {
  if (name === 'lo') throw new AirlockError('authorization', 'loopback_interface', 'lo is the loopback interface, which local services depend on; Airlock does not change it');
}

/** The interface that carries the default route: the host's way out (and most likely the SSH session's way in). */
export function refuseDefaultRouteDev(net: NetState, name: string, change: string): void {
  if (net.defaultDevs.includes(name)) {
    throw new AirlockError('authorization', 'default_route_interface', `${name} carries the default route, most likely the way in to this host; Airlock does not ${change}`, 'a person does this from a console');
  }
}

/** The address family of a validated address (isIP: a gateway may carry a zone id, which parseNet refuses). */
export const family = (ip: string): 4 | 6 => (isIP(ip) === 6 ? 6 : 4);
export const famFlag = (f: 4 | 6) => (f === 6 ? '-6' : '-4');
