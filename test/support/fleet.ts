/**
 * A fleet for the tests: N booted Debian test-bed hosts and a booted workstation, each in a
 * network namespace of its own on a bridge of the run's own (fleetNetwork); each host with its
 * sshd and Airlock's Debian package installed (test/support/package.ts), its daemon run by the
 * package's unit; the workstation with the relay under its
 * real unit (its account, its hardening) and the agent under its own account. Nothing is
 * mocked: systemd runs the relay, the relay runs the system's ssh, each host's sshd runs the
 * forced proxy, each daemon reads the relay account's credentials from the kernel.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox, type CommandResult, type Sandbox } from '../../src/sandbox/overlay.js';
import { buildTestbedRoot } from '../../src/sandbox/testbed-root.js';
import { buildPackage, installPackage } from './package.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const AIRLOCK_JS = join(ROOT, 'bin', 'airlock.js');
const IP = '/usr/sbin/ip';

export interface FleetHost {
  name: string;
  address: string;
  box: Sandbox;
  /** Runs `airlock ARGS` on this host as root (the package's /usr/bin/airlock). */
  airlock(args: string[]): Promise<CommandResult>;
  /** The SHA256 fingerprint of this host's Ed25519 host key, as the host itself reads it. */
  fingerprint(): Promise<string>;
  /** Puts `policy` in /etc/airlock/policy.toml and restarts the daemon; resolves once it answers again. */
  setPolicy(policy: string): Promise<void>;
}

export interface Workstation {
  box: Sandbox;
  /** Runs a program in the workstation as that account (its groups from the workstation's /etc/group). */
  runAs(user: string, program: string, args: string[], env?: Record<string, string>): Promise<CommandResult>;
  /** `airlock ARGS` as that account (root: as root). */
  airlock(user: string, args: string[], env?: Record<string, string>): Promise<CommandResult>;
  /** An account's uid, primary gid and groups, as the workstation's files say. */
  identity(user: string): Promise<{ uid: number; gid: number; groups: number[] }>;
  /** `airlock ARGS` as that account, left running (a command that waits for a person: `airlock fleet approve`). */
  spawnAirlock(user: string, args: string[]): Promise<ChildProcess>;
  /** The relay unit's journal, its last lines. */
  relayLog(): Promise<string[]>;
}

export interface Fleet {
  hosts: FleetHost[];
  ws: Workstation;
  /** This machine's address on the fleet's bridge: how a host reaches what the test serves. */
  gateway: string;
  stop(): Promise<void>;
}

const must = (r: CommandResult, what: string) => {
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}): ${r.stderr || r.stdout}`);
  return r;
};

/**
 * The fleet's private network: a bridge on this machine (SUBNET.1, the workstation's way to the
 * hosts) and, per host n, a network namespace joined to it by a veth pair, with `SUBNET.(10+n)/24`.
 * The /24 is this run's own, so two runs on one machine never answer for each other.
 */
function fleetNetwork(tag: string) {
  const ip = (...args: string[]) => execFileSync(IP, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const subnet = `10.231.${Number(tag) % 250}`;
  const bridge = `alkbr${tag}`.slice(0, 15);
  const made: Array<{ ns: string; outer: string }> = [];
  ip('link', 'add', bridge, 'type', 'bridge');
  // The workstation shares this machine's network: it reaches the hosts through the bridge's own address.
  ip('addr', 'add', `${subnet}.1/24`, 'dev', bridge);
  ip('link', 'set', bridge, 'up');
  return {
    gateway: `${subnet}.1`,
    /** Machine n's namespace on the bridge: its path for nspawn, and its address. */
    add(n: number): { netns: string; address: string } {
      const ns = `alk-${tag}-${n}`;
      const outer = `alk${tag}v${n}`.slice(0, 15);
      const inner = `alk${tag}i${n}`.slice(0, 15);
      ip('netns', 'add', ns);
      made.push({ ns, outer });
      ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
      ip('link', 'set', outer, 'master', bridge);
      ip('link', 'set', outer, 'up');
      ip('link', 'set', inner, 'netns', ns);
      ip('-n', ns, 'addr', 'add', `${subnet}.${10 + n}/24`, 'dev', inner);
      ip('-n', ns, 'link', 'set', inner, 'up');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      return { netns: `/run/netns/${ns}`, address: `${subnet}.${10 + n}` };
    },
    remove(): void {
      for (const m of made) {
        try {
          ip('link', 'del', m.outer);
        } catch {}
        try {
          ip('netns', 'del', m.ns);
        } catch {}
      }
      try {
        ip('link', 'del', bridge);
      } catch {}
    },
  };
}

/** What a test sets up on a host before Airlock's package is installed there (its daemon's first start follows). */
export type BeforePackage = (host: { name: string; index: number; box: Sandbox; gateway: string }) => Promise<void>;

/**
 * Starts a host as a server's admin would have it: booted bare (nothing of this checkout), its
 * own ssh host keys and name, sshd up, `beforePackage` done, Airlock's Debian package installed
 * (its unit runs the daemon on the default socket) with `policy` as /etc/airlock/policy.toml.
 */
async function startHost(name: string, index: number, net: { netns: string; address: string; gateway: string }, policy: string, deb: string, beforePackage?: BeforePackage): Promise<FleetHost> {
  // Bare: Node and Airlock come from packages; the checkout is bound in only for the tests' own clients (a person's principal).
  const box = await startSandbox({ mode: 'boot', lower: buildTestbedRoot(), netns: net.netns, bare: true, project: true, command: () => [] });
  try {
    // Every host of the test bed shares one root, so one set of host keys: each makes its own.
    must(await box.run('/usr/bin/hostname', [name]), 'hostname');
    must(await box.run('/usr/bin/find', ['/etc/ssh', '-maxdepth', '1', '-name', 'ssh_host_*', '-delete']), 'remove the shared host keys');
    must(await box.run('/usr/bin/ssh-keygen', ['-A']), 'ssh-keygen -A');
    must(await box.run('/usr/bin/systemctl', ['restart', 'ssh.service']), 'start sshd');
    await beforePackage?.({ name, index, box, gateway: net.gateway });
    await installPackage(box, deb);
    await setPolicy(box, name, policy);
    return {
      name,
      address: net.address,
      box,
      airlock: (args) => box.run('/usr/bin/airlock', args),
      setPolicy: (p) => setPolicy(box, name, p),
      fingerprint: async () => must(await box.run('/usr/bin/ssh-keygen', ['-lf', '/etc/ssh/ssh_host_ed25519_key.pub']), 'ssh-keygen -lf').stdout.split(' ')[1]!,
    };
  } catch (e) {
    await box.stop();
    throw e;
  }
}

/** Puts `policy` in /etc/airlock/policy.toml on a host and restarts its daemon (the package's unit); resolves once it answers again. */
async function setPolicy(box: Sandbox, name: string, policy: string): Promise<void> {
  writeFileSync(join(box.shared, 'policy.toml'), policy, { mode: 0o644 });
  must(await box.run('/usr/bin/install', ['-m', '0644', join(box.shared, 'policy.toml'), '/etc/airlock/policy.toml']), 'the policy');
  must(await box.run('/usr/bin/systemctl', ['restart', 'airlock.service']), 'restart airlock');
  const socket = `/proc/${box.pid}/root/run/airlock/airlock.sock`;
  for (let i = 0; i < 300 && !(existsSync(socket) && (await box.run('/usr/bin/systemctl', ['is-active', 'airlock.service'])).code === 0); i++) await new Promise((r) => setTimeout(r, 100));
  if (!existsSync(socket)) throw new Error(`the daemon on ${name} did not start:\n${(await box.run('/usr/bin/journalctl', ['-u', 'airlock', '--no-pager', '-n', '20'])).stdout}`);
}

/**
 * The workstation: a booted test bed of its own, on this machine's network (so the test reaches
 * what it serves on 127.0.0.1, as a person's browser on that workstation would), with an `agent`
 * and a `stranger` account. With `install`, `airlock relay install` has run there, so systemd
 * runs the relay under its real, hardened unit, and the agent is in airlock-fleet.
 */
async function startWorkstation(install: boolean): Promise<Workstation> {
  const box = await startSandbox({ mode: 'boot', lower: buildTestbedRoot(), netns: 'host', command: () => [] });
  const idsOf = async (user: string) => {
    const out = must(await box.run('/usr/bin/id', ['--', user]), `id ${user}`).stdout;
    return { uid: Number(/uid=(\d+)/.exec(out)![1]), gid: Number(/gid=(\d+)/.exec(out)![1]), groups: [...out.matchAll(/(\d+)\(/g)].slice(2).map((m) => Number(m[1])) };
  };
  /** env -i with a plain environment, then setpriv to the account (none for root): the argv before the program. */
  const asUser = async (user: string, env: Record<string, string> = {}) => {
    const id = user === 'root' ? null : await idsOf(user);
    const pre = id ? ['/usr/bin/setpriv', `--reuid=${id.uid}`, `--regid=${id.gid}`, `--groups=${[id.gid, ...id.groups].join(',')}`, '--inh-caps=-all', '--'] : [];
    const envArgs = Object.entries({ PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1', ...env }).map(([k, v]) => `${k}=${v}`);
    return ['-i', ...envArgs, ...pre];
  };
  const runAs = async (user: string, program: string, args: string[], env: Record<string, string> = {}) => box.run('/usr/bin/env', [...(await asUser(user, env)), program, ...args]);
  try {
    // Its own sshd would listen on this machine's port 22: a workstation needs none.
    await box.run('/usr/bin/systemctl', ['stop', 'ssh.service', 'ssh.socket']);
    must(await box.run('/usr/bin/hostname', ['workstation']), 'hostname');
    must(await box.run('/usr/sbin/useradd', ['-M', '-s', '/usr/sbin/nologin', '--', 'agent']), 'useradd agent');
    must(await box.run('/usr/sbin/useradd', ['-M', '-s', '/usr/sbin/nologin', '--', 'stranger']), 'useradd stranger');
    const ws: Workstation = {
      box,
      runAs,
      airlock: (user, args, env) => runAs(user, process.execPath, [AIRLOCK_JS, ...args], env),
      identity: idsOf,
      spawnAirlock: async (user, args) => spawn('/usr/bin/nsenter', ['-t', String(box.pid), '-a', '--', '/usr/bin/env', ...(await asUser(user)), process.execPath, AIRLOCK_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
      relayLog: async () => (await box.run('/usr/bin/journalctl', ['-u', 'airlock-relay', '--no-pager', '-n', '12', '-o', 'cat'])).stdout.split('\n').filter(Boolean),
    };
    if (install) {
      must(await ws.airlock('root', ['relay', 'install']), 'relay install');
      must(await box.run('/usr/sbin/usermod', ['-aG', 'airlock-fleet', '--', 'agent']), 'agent in airlock-fleet');
      await relayListening(ws);
    }
    return ws;
  } catch (e) {
    await box.stop();
    throw e;
  }
}

/** Resolves once the relay's unit listens, or throws with what its journal says. */
export async function relayListening(ws: Workstation): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await ws.relayLog()).some((l) => l.includes('listening'))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  const status = await ws.box.run('/usr/bin/systemctl', ['status', '--no-pager', 'airlock-relay']);
  throw new Error(`the relay's unit did not start:\n${status.stdout}\n${(await ws.relayLog()).join('\n')}`);
}

/**
 * N hosts and the workstation, the relay's key authorised on each host (as the dev role) and
 * each host added to the relay with the fingerprint the host itself reads; with `setUp: false`,
 * none of that (the README's test does it as the README says).
 */
export async function startFleet(n: number, opts: { policy?: string; setUp?: boolean; beforePackage?: BeforePackage } = {}): Promise<Fleet> {
  const setUp = opts.setUp ?? true;
  const tag = String(process.pid % 10000);
  const network = fleetNetwork(tag);
  const hosts: FleetHost[] = [];
  let ws: Workstation | null = null;
  const stop = async () => {
    await Promise.all([ws?.box.stop(), ...hosts.map((h) => h.box.stop())]);
    network.remove();
  };
  try {
    const nets = Array.from({ length: n }, (_, i) => network.add(i + 1));
    ws = await startWorkstation(setUp);
    const { deb } = await buildPackage();
    hosts.push(...(await Promise.all(nets.map((net, i) => startHost(`fleet-${i + 1}`, i, { ...net, gateway: network.gateway }, opts.policy ?? '', deb, opts.beforePackage)))));
    if (!setUp) return { hosts, ws, gateway: network.gateway, stop };
    const key = must(await ws.airlock('root', ['relay', 'key']), 'relay key').stdout.trim();
    for (const h of hosts) {
      must(await h.airlock(['proxy', 'authorize', key]), `proxy authorize on ${h.name}`);
      must(await ws.airlock('root', ['hosts', 'add', h.name, h.address, '--fingerprint', await h.fingerprint()]), `hosts add ${h.name}`);
    }
    return { hosts, ws, gateway: network.gateway, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
