/** Whether one of the firewall tools is installed: the ufw and fail2ban actions and the firewalld backend are offered only where it is. */
import type { Host } from '../../action.js';
import { PROGRAMS_FIREWALL } from './programs.js';

/** Is a program of the table installed at one of its candidate paths? */
export async function installed(host: Host, program: keyof typeof PROGRAMS_FIREWALL): Promise<boolean> {
  for (const p of PROGRAMS_FIREWALL[program]) if ((await host.stat(p))?.isFile) return true;
  return false;
}
