/**
 * The real command line beside the web console in its tests: `airlock console` as the console's
 * own Unix account, and `airlock passkey add` as a person at a real pseudo-terminal (script(1)),
 * each against one daemon's socket, run from source as that user (setpriv, no capabilities).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { UnixIdentity } from '../../src/sandbox/principal.js';
import { CLI } from './cli.js';

/** setpriv's argv to become `who` (their uid, gid and groups) with no capability inherited. */
export const asUser = (who: UnixIdentity) => ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--inh-caps=-all', '--'];
/** `airlock --socket SOCKET ARGS`, from source. */
export const cliArgv = (socket: string, args: string[]) => [process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', socket, ...args];

/** `airlock console` as the console's own account, listening on 127.0.0.1:`port` for `origin`, until it says it listens. */
export async function startConsole(who: UnixIdentity, socket: string, port: number, origin: string): Promise<ChildProcess> {
  const argv = [...asUser(who), ...cliArgv(socket, ['console', '--listen', `127.0.0.1:${port}`, '--origin', origin])];
  const child = spawn(argv[0]!, argv.slice(1), { cwd: '/', detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' } });
  let err = '';
  child.stdout!.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`airlock console did not start:\n${err}`)), 60_000);
    child.stderr!.on('data', (d) => {
      err += d;
      if (err.includes('listening on')) (clearTimeout(timer), resolve());
    });
    child.on('exit', (code) => reject(new Error(`airlock console exited (${code}):\n${err}`)));
  });
  return child;
}

/**
 * `airlock passkey add ARGS` as `who` at a real pseudo-terminal (script(1)), left running while it
 * polls: `browserPart` gets the link and the check code it prints; the code prompt, when it
 * comes, is answered with `code()`. Resolves with its exit status and all it printed.
 */
export function passkeyAdd(
  who: UnixIdentity,
  socket: string,
  args: string[],
  browserPart: (link: string, check: string) => Promise<void>,
  code: () => Promise<string>,
): Promise<{ status: number; out: string }> {
  const inner = [...asUser(who), ...cliArgv(socket, ['passkey', 'add', ...args])].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/script', ['-q', '-e', '-c', inner, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1', TERM: 'dumb' } });
    let out = '';
    let linked = false;
    let typed = false;
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`passkey add did not finish:\n${out}`))), 180_000);
    const seen = async () => {
      const link = /(http:\/\/localhost:\d+\/register#[A-Za-z0-9_-]+)/.exec(out);
      const check = /Check code: (\S+)/.exec(out);
      if (!linked && link && check) {
        linked = true;
        browserPart(link[1]!, check[1]!).catch((e) => (child.kill('SIGKILL'), reject(e)));
      }
      if (!typed && out.includes('Code from your authenticator app')) {
        typed = true;
        child.stdin.write(`${await code()}\n`);
        child.stdin.end();
      }
    };
    child.stdout.on('data', (d) => ((out += d), void seen()));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (status) => (clearTimeout(timer), resolve({ status: status ?? 128, out })));
  });
}
