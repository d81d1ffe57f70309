/** Runs the real `airlock` command line (from source) and captures its result. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'src', 'cli', 'main.ts');
export const DAEMON = join(ROOT, 'src', 'daemon', 'entry.ts');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `airlock ARGS` (or `airlock daemon ARGS` when entry is DAEMON), with a deadline. */
export function airlock(args: string[], opts: { entry?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<Run> {
  const entry = opts.entry ?? CLI;
  const argv = entry === DAEMON ? ['daemon', ...args] : args;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...argv], { env: { ...process.env, NO_COLOR: '1', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 128, stdout, stderr });
    });
  });
}

/** `airlock --socket SOCKET ARGS` as a real Unix user (setpriv), with no terminal, as an agent's shell tool runs it. */
export function airlockAs(who: { uid: number; gid: number; groups: number[] }, socket: string, args: string[]): Promise<Run> {
  const argv = ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',') || who.gid}`, '--inh-caps=-all', '--', process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', socket, ...args];
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 128, stdout, stderr });
    });
  });
}
