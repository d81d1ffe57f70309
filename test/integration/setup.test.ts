/**
 * `airlock setup`'s role check against a real daemon, run as real Unix users (setpriv), the
 * way the agent's server will connect: an account in airlock-dev is told its role; an account
 * in no airlock group is told the exact command that fixes it; and the files are the
 * account's own (its HOME), written whatever the checks say.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from '../support/world.js';
import { CLI } from '../support/cli.js';
import type { UnixIdentity } from '../../src/sandbox/principal.js';

let w: World;
let dev: UnixIdentity, loner: UnixIdentity;
const scratch = mkdtempSync(join(tmpdir(), 'airlock-setup-int-'));
chmodSync(scratch, 0o755);
before(async () => {
  w = await startWorld();
  dev = await w.d.addUser('devagent', ['airlock-dev']);
  loner = await w.d.addUser('loner', []);
});
after(async () => {
  await w?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A HOME and project folder owned by `who`, and `airlock --socket S setup ARGS --json` run as them. */
function setupAs(who: UnixIdentity, name: string, args: string[]): Promise<{ code: number; json: any; home: string; stderr: string }> {
  const home = join(scratch, name);
  const project = join(home, 'project');
  mkdirSync(project, { recursive: true });
  for (const d of [home, project]) chownSync(d, who.uid, who.gid);
  const argv = ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--', process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', w.d.socket, 'setup', ...args, '--json'];
  return new Promise((resolve) => {
    // USER: the host's password database does not know the overlay's users.
    const child = spawn(argv[0]!, argv.slice(1), { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: home, USER: name, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? 128, json: stdout ? JSON.parse(stdout) : null, home, stderr }));
  });
}

const check = (j: any, name: string) => j.checks.find((k: any) => k.name === name);

test('an agent in airlock-dev: configured, and told the role the daemon gives it', async () => {
  const r = await setupAs(dev, 'devagent', ['--codex', '--claude']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    r.json.checks.map((k: any) => [k.name, k.ok]),
    [
      ['node', true],
      ['socket', true],
      ['role', true],
    ],
  );
  assert.match(check(r.json, 'role').detail, new RegExp(`^the daemon sees devagent \\(uid ${dev.uid}, via unix\\) with the role dev$`));
  assert.equal(r.json.server.env.AIRLOCK_SOCKET, w.d.socket);
  const config = join(r.home, '.codex', 'config.toml');
  assert.ok(existsSync(config));
  assert.equal(statSync(config).uid, dev.uid, 'the account\'s own file');
});

test('an agent in no airlock group: the daemon refuses it, and setup says the exact fix', async () => {
  const r = await setupAs(loner, 'loner', ['--codex']);
  assert.equal(r.code, 0, 'the files are written; a failed check does not fail setup');
  const role = check(r.json, 'role');
  assert.equal(role.ok, false);
  assert.equal(role.detail, "the agent's account (loner) is in no airlock group: sudo usermod -aG airlock-dev loner, then log in again");
  assert.equal(role.fix, 'sudo usermod -aG airlock-dev loner, then log in again');
  assert.ok(existsSync(join(r.home, '.codex', 'config.toml')));
});
