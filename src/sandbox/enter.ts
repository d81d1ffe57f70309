/**
 * Runs inside fresh mount/UTS/IPC namespaces (started by overlay.ts through
 * unshare): mounts the overlay of `/`, shares the real `shared` directory and the
 * kernel filesystems into it, then runs the command chrooted there.
 * argv: BASE -- COMMAND...
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [base, sep, ...command] = process.argv.slice(2);
if (!base || sep !== '--' || command.length === 0) {
  process.stderr.write('usage: enter BASE -- COMMAND...\n');
  process.exit(2);
}
const merged = join(base, 'merged');
const mount = (...args: string[]) => execFileSync('/usr/bin/mount', args, { stdio: 'inherit' });

mount('-t', 'overlay', 'overlay', '-o', `lowerdir=/,upperdir=${join(base, 'upper')},workdir=${join(base, 'work')}`, merged);
for (const fs of ['/proc', '/dev', '/sys']) mount('--rbind', fs, merged + fs);
mount('--bind', join(base, 'shared'), merged + join(base, 'shared'));

const child = spawn('/usr/sbin/chroot', [merged, ...command], { stdio: 'inherit' });
writeFileSync(join(base, 'shared', '.sandbox-pid'), String(child.pid));
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
