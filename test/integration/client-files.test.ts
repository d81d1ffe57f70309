/**
 * Issue 22, finding 1: a file the CLI writes is never written by name in a folder someone else
 * can write. An agent (its own Unix account) runs a racer that, for the whole of many setup runs,
 * replaces setup's temporary file with a symbolic link to a victim file as fast as it can, while
 * its own large configuration file slows the merge. The victim never changes: not its mode, not
 * its owner, not its content.
 *   - the person runs setup in a shared project folder the agent can write: before the fix a
 *     chmod by name made the person's 0600 ~/.pgpass 0666; now setup refuses the folder.
 *   - root runs setup with HOME the agent's home (`sudo airlock setup`): before the fix a chown by
 *     name gave the agent a root-only file; now every change goes through the open descriptor.
 * The accounts are bare numeric uids (setpriv needs no password entry); no daemon is needed:
 * setup writes its files whatever its checks say.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../support/cli.js';

/** Each run starts the CLI (about 3.5 s here): 15 runs a scenario in npm test; AIRLOCK_RACE_RUNS=200 for a long soak. */
const RUNS = Number(process.env.AIRLOCK_RACE_RUNS ?? 15);
const PERSON = { uid: 61733, gid: 61733 };
const AGENT = { uid: 61734, gid: 61734 };
/** A shared group, as a team's project folder has: the person and the agent are both in it. */
const TEAM = 61735;
const RACER = new URL('../support/link-racer.mjs', import.meta.url).pathname;

const scratch = mkdtempSync(join(tmpdir(), 'airlock-client-files-'));
chmodSync(scratch, 0o755);
after(() => rmSync(scratch, { recursive: true, force: true }));

/** An agent's configuration of several MiB (a long history), so the merge takes a while. */
function bigConfig(): string {
  const history = Array.from({ length: 60_000 }, (_, i) => ({ display: `step ${i} ${'x'.repeat(100)}`, pastedContents: {} }));
  return JSON.stringify({ numStartups: 3, mcpServers: {}, projects: { '/srv': { history } } }, null, 2) + '\n';
}
const BIG = bigConfig();

function run(argv: string[], env: Record<string, string>, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}

const as = (who: { uid: number; gid: number }, groups: number[]) => ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${groups.join(',')}`, '--inh-caps=-all', '--'];

/** The racer, as the agent, swapping every `prefix*` entry of `dir` (a writer's temporary `.NAME.airlock-*`) for a link to `victim` until stopped. */
async function startRacer(dir: string, prefix: string, victim: string): Promise<{ child: ChildProcess; stop(): Promise<number> }> {
  const child = spawn(as(AGENT, [AGENT.gid, TEAM])[0]!, [...as(AGENT, [AGENT.gid, TEAM]).slice(1), process.execPath, RACER, dir, prefix, victim], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => out.includes('ready\n') && resolve());
    child.on('exit', (code) => reject(new Error(`the racer exited (${code})`)));
  });
  return {
    child,
    stop: () =>
      new Promise((resolve) => {
        child.on('exit', () => resolve(Number(out.split('\n')[1] ?? 0)));
        child.kill('SIGTERM');
      }),
  };
}

const fingerprint = (path: string) => {
  const st = statSync(path);
  return { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, content: readFileSync(path, 'utf8') };
};

test('person: a racer in a shared project folder never reaches the person\'s ~/.pgpass through setup', { timeout: 3_600_000 }, async () => {
  const home = join(scratch, 'person');
  mkdirSync(home, { mode: 0o700 });
  chownSync(home, PERSON.uid, PERSON.gid);
  const victim = join(home, '.pgpass');
  writeFileSync(victim, 'db.internal:5432:*:app:s3cret\n', { mode: 0o600 });
  chownSync(victim, PERSON.uid, PERSON.gid);
  const before = fingerprint(victim);
  // The team's project folder: the person's, group-writable for the team (the agent is in it).
  const project = join(scratch, 'project');
  mkdirSync(project);
  chownSync(project, PERSON.uid, TEAM);
  chmodSync(project, 0o2775);
  const config = join(project, '.mcp.json');
  const racer = await startRacer(project, '..mcp.json.airlock-', victim);
  const outcomes = new Map<string, number>();
  try {
    for (let i = 0; i < RUNS; i++) {
      // The agent's own file, 0666 so the mode setup keeps is one the agent wants on the victim.
      rmSync(config, { force: true });
      writeFileSync(config, BIG);
      chownSync(config, AGENT.uid, AGENT.gid);
      chmodSync(config, 0o666);
      const r = await run([...as(PERSON, [PERSON.gid, TEAM]), process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', join(scratch, 'none.sock'), 'setup', '--claude', '--yes', '--json'], { HOME: home, USER: 'person' }, project);
      assert.deepEqual(fingerprint(victim), before, `run ${i + 1}: the person's ~/.pgpass changed (${r.stdout.slice(0, 400)})`);
      const file = JSON.parse(r.stdout).clients?.[0]?.files?.find((f: any) => f.path === config);
      outcomes.set(file?.action ?? 'none', (outcomes.get(file?.action ?? 'none') ?? 0) + 1);
    }
  } finally {
    const swaps = await racer.stop();
    console.log(`person: ${RUNS} runs, ${swaps} swaps by the racer, outcomes ${JSON.stringify(Object.fromEntries(outcomes))}`);
  }
  // The folder is refused before anything is created in it: the racer never had a file to swap.
  assert.deepEqual(Object.fromEntries(outcomes), { refused: RUNS });
});

test('sudo: a racer in the agent\'s home never reaches a root-only file through `sudo airlock setup`', { timeout: 3_600_000 }, async () => {
  const home = join(scratch, 'agent');
  mkdirSync(home, { mode: 0o755 });
  chownSync(home, AGENT.uid, AGENT.gid);
  const victim = join(scratch, 'root-only');
  writeFileSync(victim, 'root secret\n', { mode: 0o600 });
  const before = fingerprint(victim);
  const config = join(home, '.claude.json');
  const racer = await startRacer(home, '..claude.json.airlock-', victim);
  const outcomes = new Map<string, number>();
  let swaps = 0;
  try {
    for (let i = 0; i < RUNS; i++) {
      rmSync(config, { force: true });
      writeFileSync(config, BIG, { mode: 0o644 });
      chownSync(config, AGENT.uid, AGENT.gid);
      rmSync(join(home, '.claude'), { recursive: true, force: true });
      const r = await run([process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', join(scratch, 'none.sock'), 'setup', '--claude', '--user', '--yes', '--json'], { HOME: home, USER: 'root', SUDO_USER: 'agent' }, home);
      assert.deepEqual(fingerprint(victim), before, `run ${i + 1}: the root-only file changed (${r.stdout.slice(0, 400)})`);
      const file = JSON.parse(r.stdout).clients?.[0]?.files?.find((f: any) => f.path === config);
      const action = file?.action ?? 'none';
      outcomes.set(action, (outcomes.get(action) ?? 0) + 1);
      if (action === 'update') {
        // Written: the agent's file, still the agent's, with setup's entry in it.
        const st = statSync(config);
        assert.equal(st.uid, AGENT.uid);
        assert.ok(readFileSync(config, 'utf8').includes('"airlock"'));
      } else assert.equal(action, 'refused', r.stdout.slice(0, 400));
    }
  } finally {
    swaps = await racer.stop();
    console.log(`sudo: ${RUNS} runs, ${swaps} swaps by the racer, outcomes ${JSON.stringify(Object.fromEntries(outcomes))}`);
  }
  // How often the racer got in depends on the machine's load (a write lasts milliseconds): the
  // swaps are reported, and every one of them ended as a refusal above, never as a changed victim.
});
