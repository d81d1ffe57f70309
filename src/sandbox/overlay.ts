/**
 * A throwaway copy of this host: an overlay of `/` in private mount, UTS and IPC
 * namespaces, with a command chrooted into it. Whatever that command changes lands
 * in a temporary upper directory and vanishes with stop(). Used by `airlock demo`
 * and the test suite to run a real daemon against a real (but disposable) host.
 * Needs root; runs only programs by absolute path, never a shell.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, renameSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from './node-command.js';
import { loginDefsFor, reserveUidBlock, type UidBlock } from './uid-block.js';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  /** Directory on the real host shared into the sandbox at the same path (sockets, database, keys). */
  readonly shared: string;
  /** chroot: the first uid of this sandbox's block (uid-block.ts); null in a container, which has its own pids. */
  readonly uidBlock: number | null;
  /** Pid of the command inside (in the host's pid namespace); a container's new init after a reboot (rebooted()). */
  readonly pid: number;
  /**
   * boot with `reboots`: waits until the container, which rebooted (or is about to), runs again
   * on the same overlay and has booted; `pid` then names its new init. Refuses after `ms`.
   */
  rebooted(ms?: number): Promise<void>;
  readonly child: ChildProcess;
  /** Runs a program inside the sandbox's namespaces and root. */
  run(program: string, args: string[]): Promise<CommandResult>;
  /** Reads a file as the sandboxed command sees it, or null when absent. */
  readFile(path: string): Promise<string | null>;
  /** Stops the command and discards the overlay; `keepSharedAs` moves the shared directory there first. */
  stop(opts?: { keepSharedAs?: string }): Promise<void>;
}

export interface SandboxOptions {
  /** argv of the command to run inside (argv[0] absolute), given the shared directory's path; in a booted container, none (`[]`) starts nothing. */
  command: (shared: string) => string[];
  /**
   * chroot (default): an overlay of this host's `/`, no init; the command's pid is the sandbox pid.
   * boot: an overlay of the Debian root `lower`, booted with systemd-nspawn on a private
   * network; the command runs there as a transient systemd service (`airlock-sandboxed`).
   */
  mode?: 'chroot' | 'boot';
  lower?: string;
  env?: Record<string, string>;
  onOutput?: (line: string) => void;
  /** Writes files into the shared directory before the command starts (a policy file, say). */
  prepare?: (shared: string) => void;
  /** chroot: the first uid of the block to take (the one a kept state was made in); default: any free one. */
  uidBlock?: number;
  /** boot: bind neither this Node nor the project into the container, and start no command (a host that installs Airlock's package itself). */
  bare?: boolean;
  /** boot with bare: the project is bound in all the same (read-only, at its own path), for a test's own clients; the host's Airlock is still its package. */
  project?: boolean;
  /** boot: the network namespace the container joins (`/run/netns/NAME`, or `host`: this machine's own), instead of a private network of its own. */
  netns?: string;
  /** boot: how many reboots of the container to follow (enter.ts boots the same overlay again, up to 5); default 0: a reboot ends the sandbox. */
  reboots?: number;
  /** Undoes what prepare did that removing the directory cannot (an unmount): after the command stopped, before the shared directory is moved or removed. */
  cleanup?: (shared: string) => void;
}

const ENTER = join(dirname(fileURLToPath(import.meta.url)), 'enter.js');
const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SANDBOXED_UNIT = 'airlock-sandboxed';

export function canSandbox(): string | null {
  if (process.getuid?.() !== 0) return 'an overlay of / needs root (mount namespaces and overlayfs)';
  if (!existsSync('/usr/bin/unshare') || !existsSync('/usr/bin/nsenter')) return 'util-linux unshare and nsenter are missing';
  return null;
}

/**
 * A container image's apt (Docker's debian images: /etc/apt/apt.conf.d/docker-clean) keeps no
 * package cache, so every apt-get and apt-cache run parses all the package lists again: about
 * two seconds of CPU each here, and a change's preview, checks and rollback rounds run dozens.
 * The copy gets Debian's own default back, as on a server installed from Debian's installer.
 */
const APT_CONF_D = '/etc/apt/apt.conf.d';
function aptCacheOn(base: string): void {
  if (!existsSync(APT_CONF_D)) return;
  const dir = join(base, 'upper', APT_CONF_D);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  writeFileSync(join(dir, 'zz-airlock-sandbox-cache'), '// Written by the sandbox (src/sandbox/overlay.ts): apt\'s own default, which this host\'s image turns off.\nDir::Cache::pkgcache "pkgcache.bin";\nDir::Cache::srcpkgcache "srcpkgcache.bin";\n', { mode: 0o644 });
}

export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const why = canSandbox();
  if (why) throw new Error(why);
  const mode = opts.mode ?? 'chroot';
  const base = mkdtempSync(join(tmpdir(), 'airlock-sandbox-'));
  for (const d of ['upper', 'work', 'merged', 'shared']) mkdirSync(join(base, d), { mode: 0o755 });
  const shared = join(base, 'shared');
  await fsp.chmod(base, 0o755);
  await fsp.chmod(shared, 0o755);
  opts.prepare?.(shared);
  // A copy of this host shares its pid namespace: its users get uids of their own (uid-block.ts).
  let uids: UidBlock | null = null;
  if (mode === 'chroot' && existsSync('/etc/login.defs')) {
    uids = await reserveUidBlock(opts.uidBlock);
    mkdirSync(join(base, 'upper', 'etc'), { mode: 0o755 });
    writeFileSync(join(base, 'upper', 'etc', 'login.defs'), loginDefsFor(readFileSync('/etc/login.defs', 'utf8'), uids), { mode: 0o644 });
  }
  if (mode === 'chroot') aptCacheOn(base);
  const child = spawn(
    '/usr/bin/unshare',
    ['--mount', '--uts', '--ipc', '--propagation', 'private', '--fork', '--kill-child', '--', ...nodeCommand(ENTER), base, opts.lower ?? '/', mode, PROJECT, ...(opts.bare ? ['--bare', ...(opts.project ? ['--project'] : [])] : []), ...(opts.netns ? ['--netns', opts.netns] : []), ...(opts.reboots ? ['--reboots', String(opts.reboots)] : []), '--', ...(mode === 'chroot' ? opts.command(shared) : [])],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...opts.env } },
  );
  const lines = (chunk: Buffer) => chunk.toString('utf8').split('\n').filter(Boolean).forEach((l) => opts.onOutput?.(l));
  child.stdout!.on('data', lines);
  child.stderr!.on('data', lines);
  const pidFile = join(shared, '.sandbox-pid');
  // The file may be caught between its creation and its write: only a whole positive number counts.
  const readPid = (file: string) => {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    return /^[1-9]\d*$/.test(text) ? Number(text) : null;
  };
  let pid = 0;

  // A chroot shares the network and pid namespaces with this host; a booted container has its own.
  const enterArgs = mode === 'chroot' ? ['-m', '-u', '-i', '-r', '-w'] : ['-a'];
  const run = (program: string, args: string[]) =>
    new Promise<CommandResult>((resolve) => {
      execFile('/usr/bin/nsenter', ['-t', String(pid), ...enterArgs, '--', program, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as NodeJS.ErrnoException & { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr });
      });
    });

  let stopped = false;
  const stop = async (o: { keepSharedAs?: string } = {}) => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null) {
      const done = new Promise((r) => child.once('exit', r));
      // unshare does not forward signals to what it forked: signal the command itself,
      // or, for a container, enter.ts, which asks nspawn for an orderly poweroff.
      const target = mode === 'chroot' ? pid : readPid(join(shared, '.enter-pid'));
      if (target) signal(target, 'SIGTERM');
      else child.kill('SIGKILL');
      const t = setTimeout(() => (pid && signal(pid, 'SIGKILL'), child.kill('SIGKILL')), mode === 'chroot' ? 5000 : 20_000);
      await done;
      clearTimeout(t);
    }
    // The namespaces die with their last process, taking the mounts with them.
    uids?.release();
    opts.cleanup?.(shared);
    if (o.keepSharedAs) renameSync(shared, o.keepSharedAs);
    try {
      rmSync(base, { recursive: true, force: true });
    } catch {
      // The daemon marks its checkpoint file append-only (chattr +a) where it can.
      await new Promise((r) => execFile('/usr/bin/chattr', ['-R', '-a', '--', shared], r));
      rmSync(base, { recursive: true, force: true });
    }
  };

  const booted = async () => {
    // Until systemd listens, systemctl answers "offline"; then --wait blocks until boot ends.
    const until = Date.now() + 90_000;
    let boot = await run('/usr/bin/systemctl', ['is-system-running', '--wait']);
    while (!/^(running|degraded)/.test(boot.stdout) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      boot = await run('/usr/bin/systemctl', ['is-system-running', '--wait']);
    }
    if (!/^(running|degraded)/.test(boot.stdout)) throw new Error(`the test-bed container did not boot: ${boot.stdout}${boot.stderr}`);
  };
  const rebooted = async (ms = 120_000) => {
    if (mode !== 'boot' || !opts.reboots) throw new Error('rebooted(): only a booted sandbox started with `reboots` comes back');
    const old = pid;
    pid = await waitFor(() => {
      const p = readPid(pidFile);
      return p !== null && p !== old ? p : null;
    }, child, ms).catch((e: Error) => {
      throw new Error(`the container did not come back from its reboot: ${e.message} (its old init, pid ${old}, ${existsSync(`/proc/${old}`) ? 'still runs' : 'is gone'})`);
    });
    await booted();
  };

  try {
    pid = await waitFor(() => readPid(pidFile), child, 15_000);
    if (mode === 'boot') {
      await booted();
      const [program, ...args] = opts.command(shared);
      // A bare host starts nothing here: it installs Airlock's package, whose unit starts the daemon.
      if (program !== undefined && opts.reboots) {
        // A transient unit would not come back after a reboot: one that starts at every boot, as a package's does.
        writeFileSync(`/proc/${pid}/root/etc/systemd/system/${SANDBOXED_UNIT}.service`, bootUnit([program, ...args], opts.env ?? {}), { mode: 0o644 });
        const started = await run('/usr/bin/systemctl', ['enable', '--now', '--quiet', `${SANDBOXED_UNIT}.service`]);
        if (started.code !== 0) throw new Error(`could not start the command in the container: ${started.stderr}`);
      } else if (program !== undefined) {
        const env = Object.entries(opts.env ?? {}).map(([k, v]) => `--setenv=${k}=${v}`);
        const started = await run('/usr/bin/systemd-run', [`--unit=${SANDBOXED_UNIT}`, '--quiet', ...env, '--', program, ...args]);
        if (started.code !== 0) throw new Error(`could not start the command in the container: ${started.stderr}`);
      }
    }
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    shared,
    uidBlock: uids?.first ?? null,
    get pid() {
      return pid;
    },
    rebooted,
    child,
    run,
    readFile: async (path) => {
      try {
        return await fsp.readFile(`/proc/${pid}/root${path}`, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    stop,
  };
}

/** A unit file that runs argv at every boot; each word quoted as systemd reads ExecStart= (\\, \", %% and $$). */
function bootUnit(argv: string[], env: Record<string, string>): string {
  const quote = (w: string) => `"${w.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
  const environment = Object.entries(env).map(([k, v]) => `Environment=${quote(`${k}=${v}`)}\n`).join('');
  return `[Unit]\nDescription=the sandbox's command, started at every boot\n\n[Service]\n${environment}ExecStart=${argv.map(quote).join(' ')}\n\n[Install]\nWantedBy=multi-user.target\n`;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  // kill(0) or kill(-1) would signal our own process group or every process: never.
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    process.kill(pid, sig);
  } catch {}
}

async function waitFor<T>(probe: () => T | null, child: ChildProcess, ms: number): Promise<T> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const v = probe();
    if (v !== null && !Number.isNaN(v)) return v;
    if (child.exitCode !== null) throw new Error(`sandbox exited with status ${child.exitCode} before it was ready`);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('sandbox did not start in time');
}
