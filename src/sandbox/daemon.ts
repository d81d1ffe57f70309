/**
 * A real Airlock daemon on a throwaway host: the overlay sandbox running
 * `airlock daemon` with its socket, database, keys and checkpoints in the shared
 * directory. Used by `airlock demo`, the integration tests and the benchmark.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { nodeCommand } from './node-command.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SANDBOXED_UNIT, startSandbox, type Sandbox } from './overlay.js';
import { buildTestbedRoot } from './testbed-root.js';
import type { UnixIdentity } from './principal.js';
import { stateFiles } from '../protocol/defaults.js';


/** In the state directory: the uid block its users were made in, for a daemon started again on a copy. */
const UID_BLOCK_FILE = '.sandbox-uid-block';

export interface SandboxDaemon {
  box: Sandbox;
  socket: string;
  files: ReturnType<typeof stateFiles>;
  stateDir: string;
  logDir: string;
  /** Creates a user (and any missing groups) inside the sandbox; returns its ids. */
  addUser(name: string, groups: string[]): Promise<UnixIdentity>;
  /** Daemon stderr lines so far. */
  logs: string[];
  /** SIGTERM to the daemon (it flushes its last checkpoint), then discards the host; see Sandbox.stop. */
  stop(opts?: { keepSharedAs?: string }): Promise<void>;
}

export interface SandboxDaemonOptions {
  daemonArgs?: string[];
  onOutput?: (l: string) => void;
  /** overlay (default): a throwaway copy of this host, no init. testbed: the booted Debian container. */
  host?: 'overlay' | 'testbed';
  /** Text of the policy file the daemon starts with (default: none, so the built-in default policy). */
  policy?: string;
  /** Text of the token file (mode 0600) the daemon starts with (default: none, so no token is valid). */
  tokens?: string;
  /** A state directory (store and keys, as a stopped daemon left it) that the daemon starts on, copied; default: a fresh one. */
  state?: string;
  /** A file system mounted on the state directory before the daemon starts (a small one, to fill), and unmounted after it stopped. */
  stateMount?: { mount(stateDir: string): void; unmount(stateDir: string): void };
  /** testbed: reboots of the container to follow (Sandbox.rebooted); the daemon then runs as a unit enabled at boot, not a transient one. */
  reboots?: number;
  /** Options for the daemon's node, given the shared directory (the benchmark's `--cpu-prof-dir`, kept by `stop({ keepSharedAs })`). */
  nodeOptions?: (shared: string) => string[];
}

export async function startSandboxDaemon(opts: SandboxDaemonOptions = {}): Promise<SandboxDaemon> {
  const logs: string[] = [];
  const [node, ...entryArgs] = nodeCommand(join(dirname(fileURLToPath(import.meta.url)), '..', 'daemon', 'entry.js'));
  const testbed = opts.host === 'testbed';
  // A kept state names its users with their uids (alice(uid N)): the same block, so the same uids.
  const keptBlock = opts.state !== undefined && existsSync(join(opts.state, UID_BLOCK_FILE)) ? Number(readFileSync(join(opts.state, UID_BLOCK_FILE), 'utf8')) : undefined;
  const box: Sandbox = await startSandbox({
    ...(testbed ? { mode: 'boot' as const, lower: buildTestbedRoot(), ...(opts.reboots ? { reboots: opts.reboots } : {}) } : {}),
    ...(keptBlock !== undefined ? { uidBlock: keptBlock } : {}),
    prepare: (shared) => {
      if (opts.policy !== undefined) writeFileSync(join(shared, 'policy.toml'), opts.policy, { mode: 0o644 });
      if (opts.tokens !== undefined) writeFileSync(join(shared, 'tokens.toml'), opts.tokens, { mode: 0o600 });
      if (opts.stateMount) {
        mkdirSync(join(shared, 'state'), { mode: 0o700 });
        opts.stateMount.mount(join(shared, 'state'));
      }
      if (opts.state !== undefined) cpSync(opts.state, join(shared, 'state'), { recursive: true });
    },
    ...(opts.stateMount ? { cleanup: (shared: string) => opts.stateMount!.unmount(join(shared, 'state')) } : {}),
    command: (shared) => [node!, ...(opts.nodeOptions?.(shared) ?? []), ...entryArgs, 'daemon', '--socket', `${shared}/airlock.sock`, '--state-dir', `${shared}/state`, '--log-dir', `${shared}/log`, '--no-syslog', '--policy', `${shared}/policy.toml`, '--tokens', `${shared}/tokens.toml`, ...(opts.daemonArgs ?? [])],
    onOutput: (l) => {
      logs.push(l);
      opts.onOutput?.(l);
    },
  });
  const socket = join(box.shared, 'airlock.sock');
  const stateDir = join(box.shared, 'state');
  const logDir = join(box.shared, 'log');
  await waitForSocket(socket, box, logs).catch(async (e: Error) => {
    // In the container the daemon logs to the journal.
    const journal = testbed ? (await box.run('/usr/bin/journalctl', ['-u', SANDBOXED_UNIT, '--no-pager', '-n', '50'])).stdout : '';
    await box.stop();
    throw new Error(`${e.message}\n${journal}`);
  });
  if (box.uidBlock !== null) writeFileSync(join(stateDir, UID_BLOCK_FILE), String(box.uidBlock), { mode: 0o600 });
  const ensureGroup = async (g: string) => {
    const r = await box.run('/usr/bin/getent', ['group', g]);
    if (r.code !== 0) await must(box.run('/usr/sbin/groupadd', ['--', g]), `groupadd ${g}`);
  };
  return {
    box,
    socket,
    stateDir,
    logDir,
    files: stateFiles(stateDir, logDir),
    logs,
    addUser: async (name, groups) => {
      for (const g of groups) await ensureGroup(g);
      await must(box.run('/usr/sbin/useradd', ['-M', '-s', '/usr/sbin/nologin', ...(groups.length ? ['-G', groups.join(',')] : []), '--', name]), `useradd ${name}`);
      const ids = await must(box.run('/usr/bin/id', ['--', name]), `id ${name}`);
      const uid = Number(/uid=(\d+)/.exec(ids.stdout)![1]);
      const gid = Number(/gid=(\d+)/.exec(ids.stdout)![1]);
      const all = [...ids.stdout.matchAll(/(\d+)\(/g)].slice(2).map((m) => Number(m[1]));
      return { uid, gid, groups: [...new Set([gid, ...all])] };
    },
    stop: (o) => box.stop(o),
  };
}

async function must<T extends { code: number; stderr: string }>(p: Promise<T>, what: string): Promise<T> {
  const r = await p;
  if (r.code !== 0) throw new Error(`${what} failed in the sandbox: ${r.stderr.trim()}`);
  return r;
}

async function waitForSocket(path: string, box: Sandbox, logs: string[]): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if (box.child.exitCode !== null) throw new Error(`the daemon exited with status ${box.child.exitCode}:\n${logs.join('\n')}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.createConnection(path);
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the daemon did not open ${path} in time:\n${logs.join('\n')}`);
}
