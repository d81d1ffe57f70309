/**
 * Runs inside a fresh mount namespace (started by overlay.ts through unshare) and
 * mounts an overlay whose lower layer is LOWER (`/` for a copy of this host, or a
 * Debian root built by testbed-root.ts). Then, by MODE:
 *   chroot  shares the kernel filesystems and the `shared` directory into the
 *           overlay and runs COMMAND chrooted there; its pid is the sandbox pid.
 *   boot    boots the overlay with systemd-nspawn (private network, the `shared`
 *           directory, this Node binary and the project bound in at their own paths); the
 *           container's init is the sandbox pid. COMMAND is unused here: the
 *           caller starts it inside once the container runs. With --bare, neither this
 *           Node nor the project is bound in (a host that installs Airlock's package itself);
 *           with --netns PATH, the container joins that network namespace (a link the
 *           caller made to a private network of its own) instead of a private one of its own.
 *           With --bare --project, the project alone is bound in (read-only, at its own path):
 *           a host whose Airlock is the package, where the tests still run their own clients.
 *           With --reboots N, a container that reboots (nspawn exits 133) is booted again on the
 *           same overlay (its upper directory, so what the host wrote survives, as on a disk), up
 *           to N times; the new init's pid replaces the old one in the pid file.
 * argv: BASE LOWER MODE PROJECT [--bare [--project]] [--netns PATH] [--reboots N] -- COMMAND...
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [base, lower, mode, project, ...rest] = process.argv.slice(2);
const flags = rest.slice(0, Math.max(0, rest.indexOf('--')));
const command = rest.slice(flags.length + 1);
const bare = flags.includes('--bare');
const projectToo = flags.includes('--project');
const netns = flags.includes('--netns') ? flags[flags.indexOf('--netns') + 1] : undefined;
/** Reboots followed, at most; a few: a container that reboots in a loop is a failure to see, not to follow. */
const MAX_REBOOTS = 5;
const reboots = flags.includes('--reboots') ? Number(flags[flags.indexOf('--reboots') + 1]) : 0;
/** systemd-nspawn's exit status when the container rebooted. */
const REBOOTED = 133;
if (!base || !lower || !project || (mode !== 'chroot' && mode !== 'boot') || !rest.includes('--') || (flags.includes('--netns') && !netns?.startsWith('/') && netns !== 'host') || !(Number.isInteger(reboots) && reboots >= 0 && reboots <= MAX_REBOOTS)) {
  process.stderr.write(`usage: enter BASE LOWER chroot|boot PROJECT [--bare [--project]] [--netns PATH] [--reboots 0..${MAX_REBOOTS}] -- COMMAND...\n`);
  process.exit(2);
}
/** A checkout whose node_modules or native/build is a link elsewhere (a git worktree sharing another's): that folder is bound in too. */
function modulesElsewhere(): string[] {
  return ['node_modules', join('native', 'build')].flatMap((part) => {
    const path = join(project!, part);
    const real = existsSync(path) ? realpathSync(path) : path;
    return real === path || real.startsWith(project! + '/') ? [] : [`--bind-ro=${real}`];
  });
}
const merged = join(base, 'merged');
const shared = join(base, 'shared');
const mount = (...args: string[]) => execFileSync('/usr/bin/mount', args, { stdio: 'inherit' });
const pidFile = join(shared, '.sandbox-pid');

mount('-t', 'overlay', 'overlay', '-o', `lowerdir=${lower},upperdir=${join(base, 'upper')},workdir=${join(base, 'work')}`, merged);

let child: ChildProcess;
if (mode === 'chroot') {
  for (const fs of ['/proc', '/dev', '/sys']) mount('--rbind', fs, merged + fs);
  // Recursive: a file system mounted under the shared directory before the start (a small one
  // under the daemon's state directory, to fill it) is the one the daemon sees.
  mount('--rbind', shared, merged + shared);
  child = spawn('/usr/sbin/chroot', [merged, ...command], { stdio: 'inherit' });
  // Published only once the child is chrooted: until chroot(2), its root is this machine's, and a
  // command entered there (nsenter -r) would write into this machine's own /var or /run.
  const chrooted = setInterval(() => {
    try {
      // chroot(1) calls chroot(2), then chdir("/"): both, or a relative path would still be this machine's.
      const root = realpathSync(merged);
      if (readlinkSync(`/proc/${child.pid}/root`) !== root || !`${readlinkSync(`/proc/${child.pid}/cwd`)}/`.startsWith(`${root}/`)) return;
      writeFileSync(pidFile, String(child.pid));
      clearInterval(chrooted);
    } catch {
      clearInterval(chrooted); // gone: the exit below reports it
    }
  }, 5);
} else {
  child = boot();
}

/** Boots the overlay with systemd-nspawn, and publishes its init's pid once it runs. */
function boot(): ChildProcess {
  const child = spawn(
    '/usr/bin/systemd-nspawn',
    [
      '-D', merged, '-b', '--register=no', '--keep-unit', '--quiet',
      // `host`: this machine's network itself (a workstation on a fleet's bridge, reached from the test too).
      ...(netns === 'host' ? [] : netns ? [`--network-namespace-path=${netns}`] : ['--private-network']),
      ...(bare ? [] : [`--bind-ro=${process.execPath}`]),
      ...(bare && !projectToo ? [] : [`--bind-ro=${project}`, ...modulesElsewhere()]),
      `--bind=${shared}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  // nspawn forks a short-lived helper before the container's init: publish the pid of the
  // child that runs systemd, and only once it does.
  const poll = setInterval(() => {
    try {
      for (const kid of readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ').filter(Boolean)) {
        if (readFileSync(`/proc/${kid}/comm`, 'utf8').trim() === 'systemd') {
          writeFileSync(pidFile, kid);
          clearInterval(poll);
          return;
        }
      }
    } catch {}
  }, 20);
  child.once('exit', () => clearInterval(poll));
  return child;
}
writeFileSync(join(shared, '.enter-pid'), String(process.pid));
// nspawn turns SIGTERM into an orderly poweroff of the container.
let stopping = false;
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(sig, () => {
    stopping = true;
    child.kill(sig);
  });
}
let rebooted = 0;
const exited = (code: number | null, signal: NodeJS.Signals | null) => {
  if (mode === 'boot' && code === REBOOTED && !stopping && rebooted < reboots) {
    rebooted++;
    // The old init's pid is gone: nothing is entered until the new one is published.
    rmSync(pidFile, { force: true });
    child = boot();
    child.on('exit', exited);
    return;
  }
  process.exit(code ?? (signal ? 128 : 1));
};
child.on('exit', exited);
