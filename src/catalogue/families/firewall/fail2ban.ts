/** fail2ban: its jails and banned addresses, read and changed with fail2ban-client (status, manual bans and unbans). */
import { AirlockError } from '../../../protocol/errors.js';
import { action, ALL_PLATFORMS, type Host, unchanged } from '../../action.js';
import { netContains, netText, parseNet } from '../../lib/net-address.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { isLoopback, UNSPECIFIED } from './addresses.js';
import { installed } from './installed.js';
import { lockOutError } from './lockout.js';
import { hostAddress, jailName } from './params.js';
import { readSockets } from './sockets.js';
import { compensating, exact, type StateProbe } from '../../rollback.js';

export interface Fail2banState {
  installed: boolean;
  running: boolean;
  /** Jails the server runs. */
  jails: string[];
  /** Banned addresses of the jail asked about, when it runs. */
  banned: string[];
}

export async function readFail2ban(host: Host, jail?: string): Promise<Fail2banState> {
  if (!(await installed(host, 'fail2ban-client'))) return { installed: false, running: false, jails: [], banned: [] };
  const status = await host.run('fail2ban-client', ['status']);
  if (status.code !== 0) return { installed: true, running: false, jails: [], banned: [] };
  const jails = (/Jail list:[ \t]*(.*)$/m.exec(status.stdout)?.[1] ?? '').split(/[,\s]+/).filter(Boolean);
  let banned: string[] = [];
  if (jail && jails.includes(jail)) {
    const js = await host.run('fail2ban-client', ['--', 'status', jail]);
    banned = (/Banned IP list:[ \t]*(.*)$/m.exec(js.stdout)?.[1] ?? '').split(/\s+/).filter(Boolean);
  }
  return { installed: true, running: true, jails, banned };
}

export function refuseFail2banDown(cur: Fail2banState, jail?: string): void {
  if (!cur.installed) throw new AirlockError('unsupported_platform', 'fail2ban_missing', 'fail2ban is not installed on this host', 'install the fail2ban package');
  if (!cur.running) throw new AirlockError('conflict', 'fail2ban_not_running', 'the fail2ban server is not running', 'StartService fail2ban.service starts it; UnitLogs fail2ban.service shows why it stopped');
  if (jail !== undefined && !cur.jails.includes(jail)) {
    throw new AirlockError('validation', 'no_such_jail', `fail2ban runs no jail ${jail} (running: ${cur.jails.join(', ') || 'none'})`, 'Fail2banStatus lists the jails; SetJailOption enables one');
  }
}

export const fail2banStatus = action({
  name: 'Fail2banStatus',
  family: 'firewall',
  // fail2ban is the same on Fedora and RHEL (EPEL): same client, same jail.d.
  platforms: ALL_PLATFORMS,
  description: "Show fail2ban's jails, or one jail's failure counts and banned addresses.",
  risk: 'low',
  readOnly: true,
  // Sensitive: the addresses banned or failing: other people's addresses.
  sensitive: true,
  reachesNetwork: false,
  params: params({ jail: jailName.optional() }),
  files: [],
  example: { jail: 'sshd' },
  current: ({ jail }, host) => readFail2ban(host, jail),
  shown: (cur) => ({ running: cur.running, jails: cur.jails }),
  check: ({ jail }, cur) => refuseFail2banDown(cur, jail),
  preview: ({ jail }, cur) => ({ summary: jail ? `fail2ban status of jail ${jail}` : `fail2ban status (${cur.jails.length} jails)`, change: null }),
  mechanism: ({ jail }) => [command('fail2ban-client', ['--', 'status', ...(jail ? [jail] : [])])],
});

/** A ban or an unban: the jail runs, the address is or is not banned there; a ban never catches loopback or an open SSH session. */
/** Whether the jail bans this address now (1 or 0): the jail's whole list would also read the order bans were made in. */
const bannedProbe = ({ jail, ip }: { jail: string; ip: string }): StateProbe[] => [{ program: 'fail2ban-client', args: ['--', 'get', jail, 'banned', ip] }];

function banAction(ban: boolean) {
  const verb = ban ? 'banip' : 'unbanip';
  return action({
    name: ban ? 'Fail2banBan' : 'Fail2banUnban',
    family: 'firewall',
    // fail2ban is the same on Fedora and RHEL (EPEL): same client, same jail.d.
    platforms: ALL_PLATFORMS,
    description: ban ? 'Ban one IP address in a running fail2ban jail now, for the jail\'s bantime.' : 'Lift the ban of one IP address in a running fail2ban jail.',
    // A ban is access control that can lock someone out; an unban restores what the jail took away.
    risk: ban ? 'high' : 'medium',
    // An unban lifts the ban it made. A ban lifted is made again with the jail's whole bantime, not what was left of it.
    rollback: ban ? exact(bannedProbe) : compensating('Fail2banBan', bannedProbe),
    readOnly: false,
    runsPrograms: false,
    params: params({ jail: jailName, ip: hostAddress }),
    files: [],
    example: { jail: 'sshd', ip: '203.0.113.7' },
    current: async ({ jail }, host) => ({ ...(await readFail2ban(host, jail)), sockets: ban ? await readSockets(host) : null }),
    shown: (cur) => ({ running: cur.running, jails: cur.jails, banned: cur.banned }),
    check: ({ jail, ip }, cur) => {
      refuseFail2banDown(cur, jail);
      const addr = parseNet(ip)!;
      const isBanned = cur.banned.some((b) => { const n = parseNet(b); return n !== null && netText(n) === netText(addr); });
      if (!ban) {
        if (!isBanned) return unchanged(`${ip} is not banned in jail ${jail}`);
        return;
      }
      if (isBanned) return unchanged(`${ip} is already banned in jail ${jail}`);
      if (isLoopback(addr) || UNSPECIFIED.some((u) => netText(u) === netText(addr))) {
        throw new AirlockError('authorization', 'loopback', `${ip} is a loopback or unspecified address: banning it breaks local services`);
      }
      const peer = cur.sockets?.sshPeers.find((s) => netContains(addr, parseNet(s.peer)!));
      if (peer) throw lockOutError([`${ip} has an open SSH session to port ${peer.port} of this host`], 'a person bans it by hand if that session is really hostile');
    },
    preview: ({ jail, ip }, cur) => ({
      summary: `${ban ? 'Ban' : 'Unban'} ${ip} in fail2ban jail ${jail}`,
      // Not the count of banned addresses: fail2ban changes it by itself between preview and execution.
      change: { jail, [ban ? 'bans' : 'unbans']: ip },
      sideEffects: ban ? [`packets from ${ip} to what jail ${jail} protects are rejected until its bantime ends or Fail2banUnban`] : [`${ip} can reach what jail ${jail} protects again; new failures can ban it again`],
    }),
    mechanism: ({ jail, ip }) => [command('fail2ban-client', ['--', 'set', jail, verb, ip], { undo: command('fail2ban-client', ['--', 'set', jail, ban ? 'unbanip' : 'banip', ip]) })],
  });
}

export const fail2banBan = banAction(true);
export const fail2banUnban = banAction(false);
