/**
 * A fleet for the tests: N booted Debian test-bed hosts, each in a network namespace of its own
 * joined to this machine by a veth pair (a /30 each, in a /24 of the run's own), each with its
 * sshd and an Airlock daemon on the default socket; and a workstation, a throwaway overlay of
 * this host (which shares this machine's network, so it reaches every host), where the relay
 * runs under its own account and the agent under its own. Nothing is mocked: the relay runs the
 * system's ssh, each host's sshd runs the forced proxy, each daemon reads the relay account's
 * credentials from the kernel.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox, type CommandResult, type Sandbox } from '../../src/sandbox/overlay.js';
import { buildTestbedRoot } from '../../src/sandbox/testbed-root.js';
import { AIRLOCK_GROUPS } from '../../src/protocol/risk.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const AIRLOCK_JS = join(ROOT, 'bin', 'airlock.js');
const IP = '/usr/sbin/ip';

export interface FleetHost {
  name: string;
  address: string;
  box: Sandbox;
  /** Runs `airlock ARGS` on this host as root. */
  airlock(args: string[]): Promise<CommandResult>;
  /** The SHA256 fingerprint of this host's Ed25519 host key, as the host itself reads it. */
  fingerprint(): Promise<string>;
}

export interface Workstation {
  box: Sandbox;
  /** Runs a program in the workstation as that account (its groups from the workstation's /etc/group). */
  runAs(user: string, program: string, args: string[], env?: Record<string, string>): Promise<CommandResult>;
  /** `airlock ARGS` as that account (root: as root). */
  airlock(user: string, args: string[], env?: Record<string, string>): Promise<CommandResult>;
  /** `airlock ARGS` as that account, running on while the test reads its output (a command that waits for a browser). */
  spawnAirlock(user: string, args: string[]): Promise<ChildProcess>;
  /** An account's uid, primary gid and groups, as the workstation's files say. */
  identity(user: string): Promise<{ uid: number; gid: number; groups: number[] }>;
  relay: ChildProcess;
  relayLog: string[];
}

export interface Fleet {
  hosts: FleetHost[];
  ws: Workstation;
  stop(): Promise<void>;
}

const must = (r: CommandResult, what: string) => {
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}): ${r.stderr || r.stdout}`);
  return r;
};

/** The network namespace and veth pair of host `n` (1-based): torn down by the returned function. */
function hostNetwork(tag: string, n: number): { netns: string; outer: string; address: string; remove(): void } {
  const ns = `alk-${tag}-${n}`;
  const outer = `alk${tag}${n}o`.slice(0, 15);
  const inner = `alk${tag}${n}i`.slice(0, 15);
  const ip = (...args: string[]) => execFileSync(IP, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  // A /24 of this run's own, so two runs on one machine never answer for each other.
  const subnet = `10.231.${Number(tag) % 250}`;
  ip('netns', 'add', ns);
  ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
  ip('link', 'set', inner, 'netns', ns);
  ip('addr', 'add', `${subnet}.${4 * n + 1}/30`, 'dev', outer);
  ip('link', 'set', outer, 'up');
  ip('-n', ns, 'addr', 'add', `${subnet}.${4 * n + 2}/30`, 'dev', inner);
  ip('-n', ns, 'link', 'set', inner, 'up');
  ip('-n', ns, 'link', 'set', 'lo', 'up');
  return {
    netns: `/run/netns/${ns}`,
    outer,
    address: `${subnet}.${4 * n + 2}`,
    remove: () => {
      try {
        ip('link', 'del', outer);
      } catch {}
      try {
        ip('netns', 'del', ns);
      } catch {}
    },
  };
}

/** Starts a host: booted, its own ssh host keys and name, sshd up, the daemon on the default socket with `policy`. */
async function startHost(name: string, net: { netns: string; address: string }, policy: string): Promise<FleetHost> {
  const box = await startSandbox({
    mode: 'boot',
    lower: buildTestbedRoot(),
    netns: net.netns,
    prepare: (shared) => writeFileSync(join(shared, 'policy.toml'), policy, { mode: 0o644 }),
    command: (shared) => [process.execPath, AIRLOCK_JS, 'daemon', '--no-syslog', '--policy', `${shared}/policy.toml`],
  });
  try {
    // Every host of the test bed shares one root, so one set of host keys: each makes its own.
    must(await box.run('/usr/bin/hostname', [name]), 'hostname');
    // What the package's sysusers entry makes: the groups the daemon maps roles from.
    for (const g of AIRLOCK_GROUPS) must(await box.run('/usr/sbin/groupadd', ['-f', '--', g]), `groupadd ${g}`);
    must(await box.run('/usr/bin/find', ['/etc/ssh', '-maxdepth', '1', '-name', 'ssh_host_*', '-delete']), 'remove the shared host keys');
    must(await box.run('/usr/bin/ssh-keygen', ['-A']), 'ssh-keygen -A');
    must(await box.run('/usr/bin/systemctl', ['restart', 'ssh.service']), 'start sshd');
    const socket = `/proc/${box.pid}/root/run/airlock/airlock.sock`;
    for (let i = 0; i < 300 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 100));
    if (!existsSync(socket)) throw new Error(`the daemon on ${name} did not start:\n${(await box.run('/usr/bin/journalctl', ['-u', 'airlock-sandboxed', '--no-pager', '-n', '20'])).stdout}`);
    return {
      name,
      address: net.address,
      box,
      airlock: (args) => box.run(process.execPath, [AIRLOCK_JS, ...args]),
      fingerprint: async () => must(await box.run('/usr/bin/ssh-keygen', ['-lf', '/etc/ssh/ssh_host_ed25519_key.pub']), 'ssh-keygen -lf').stdout.split(' ')[1]!,
    };
  } catch (e) {
    await box.stop();
    throw e;
  }
}

/** The workstation: the relay installed and serving as its account, an `agent` account in airlock-fleet. */
async function startWorkstation(): Promise<Workstation> {
  const box = await startSandbox({ command: () => ['/usr/bin/sleep', 'infinity'] });
  const idsOf = async (user: string) => {
    const out = must(await box.run('/usr/bin/id', ['--', user]), `id ${user}`).stdout;
    return { uid: Number(/uid=(\d+)/.exec(out)![1]), gid: Number(/gid=(\d+)/.exec(out)![1]), groups: [...out.matchAll(/(\d+)\(/g)].slice(2).map((m) => Number(m[1])) };
  };
  const setpriv = async (user: string, group?: string) => {
    const id = await idsOf(user);
    const gid = group === undefined ? id.gid : Number(must(await box.run('/usr/bin/getent', ['group', group]), `getent ${group}`).stdout.split(':')[2]);
    return ['/usr/bin/setpriv', `--reuid=${id.uid}`, `--regid=${gid}`, `--groups=${[id.gid, ...id.groups].join(',')}`, '--inh-caps=-all', '--'];
  };
  const runAs = async (user: string, program: string, args: string[], env: Record<string, string> = {}) => {
    const pre = user === 'root' ? [] : await setpriv(user);
    const envArgs = Object.entries({ PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1', ...env }).map(([k, v]) => `${k}=${v}`);
    return box.run('/usr/bin/env', ['-i', ...envArgs, ...pre, program, ...args]);
  };
  must(await box.run(process.execPath, [AIRLOCK_JS, 'relay', 'install', '--no-start']), 'relay install');
  must(await box.run('/usr/sbin/useradd', ['-M', '-s', '/usr/sbin/nologin', '-G', 'airlock-fleet', '--', 'agent']), 'useradd agent');
  must(await box.run('/usr/sbin/useradd', ['-M', '-s', '/usr/sbin/nologin', '--', 'stranger']), 'useradd stranger');
  // What systemd's RuntimeDirectory= makes for the unit: the socket's folder, entered by airlock-fleet alone.
  must(await box.run('/usr/bin/install', ['-d', '-m', '0750', '-o', 'airlock-relay', '-g', 'airlock-fleet', '/run/airlock-relay']), 'the relay socket folder');
  const relayLog: string[] = [];
  const relay = spawn('/usr/bin/nsenter', ['-t', String(box.pid), '-m', '-u', '-i', '-r', '-w', '--', ...(await setpriv('airlock-relay', 'airlock-fleet')), process.execPath, AIRLOCK_JS, 'relay', 'serve'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } });
  relay.stderr!.on('data', (c: Buffer) => relayLog.push(...c.toString().split('\n').filter(Boolean)));
  for (let i = 0; i < 100 && !relayLog.some((l) => l.includes('listening')); i++) {
    if (relay.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!relayLog.some((l) => l.includes('listening'))) throw new Error(`the relay did not start: ${relayLog.join('\n')}`);
  return {
    box,
    runAs,
    airlock: (user, args, env) => runAs(user, process.execPath, [AIRLOCK_JS, ...args], env),
    identity: idsOf,
    spawnAirlock: async (user, args) => spawn('/usr/bin/nsenter', ['-t', String(box.pid), '-m', '-u', '-i', '-r', '-w', '--', '/usr/bin/env', '-i', 'PATH=/usr/bin:/bin', 'HOME=/tmp', 'NO_COLOR=1', ...(await setpriv(user)), process.execPath, AIRLOCK_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
    relay,
    relayLog,
  };
}

/**
 * N hosts and the workstation, the relay's key authorised on each host (as the dev role) and
 * each host added to the relay with the fingerprint the host itself reads.
 */
export async function startFleet(n: number, opts: { policy?: string } = {}): Promise<Fleet> {
  const tag = String(process.pid % 10000);
  const nets: Array<ReturnType<typeof hostNetwork>> = [];
  const hosts: FleetHost[] = [];
  let ws: Workstation | null = null;
  const stop = async () => {
    ws?.relay.kill('SIGTERM');
    await Promise.all([ws?.box.stop(), ...hosts.map((h) => h.box.stop())]);
    for (const net of nets) net.remove();
  };
  try {
    for (let i = 1; i <= n; i++) nets.push(hostNetwork(tag, i));
    ws = await startWorkstation();
    hosts.push(...(await Promise.all(nets.map((net, i) => startHost(`fleet-${i + 1}`, net, opts.policy ?? '')))));
    const key = must(await ws.airlock('root', ['relay', 'key']), 'relay key').stdout.trim();
    for (const h of hosts) {
      must(await h.airlock(['proxy', 'authorize', key]), `proxy authorize on ${h.name}`);
      must(await ws.airlock('root', ['hosts', 'add', h.name, h.address, '--fingerprint', await h.fingerprint()]), `hosts add ${h.name}`);
    }
    return { hosts, ws, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
