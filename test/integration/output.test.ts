/**
 * Output people can review, against a real daemon on a real socket, with real Unix users
 * (issue 12, "Output people can review"): a file edit's preview is the unified diff
 * `diff -u` prints; an SSH key is shown with the fingerprint `ssh-keygen -lf` prints; `run`
 * prints the preview once; execute streams output notices before its result, the same lines
 * the result carries; and a client that never reads neither holds up the execution nor makes
 * the daemon queue its output: what was not sent is counted.
 */
import { grantOf } from '../../src/client/client.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from '../support/world.js';
import { airlockAs, CLI } from '../support/cli.js';
import { typeAt } from '../support/terminal.js';
import { frame, hello } from '../support/frames.js';
import type { Principal, UnixIdentity } from '../../src/sandbox/principal.js';
import type { OutputNotice, PreviewResult, ResultEnvelope } from '../../src/protocol/messages.js';
import { MAX_UNSENT_NOTICE_BYTES } from '../../src/daemon/connection.js';
import { AirlockClient } from '../../src/client/client.js';

let w: World;
let agent: Principal, human: Principal;
before(async () => {
  w = await startWorld();
  agent = await w.as('agent', ['airlock-admin']);
  human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
});
after(() => w?.close());

const hostFile = (path: string) => `/proc/${w.d.box.pid}/root${path}`;

/** `airlock --socket S ARGS` as `who`, with no terminal. */
const cliAs = (who: UnixIdentity, args: string[]) => airlockAs(who, w.d.socket, args);

/** The same at a real pseudo-terminal (stdout and stderr both on it). */
const atTerminal = (who: UnixIdentity, args: string[], answers: Array<[string, string]>) =>
  typeAt(`/usr/bin/setpriv --reuid=${who.uid} --regid=${who.gid} --groups=${who.groups.join(',')} -- ${process.execPath} --import ${import.meta.resolve('tsx')} ${CLI} --socket ${w.d.socket} ${args.join(' ')}`, answers);

/** A raw connection as root that decodes every frame the daemon sends, with its size. */
async function raw(): Promise<{ sock: net.Socket; frames: Array<{ msg: any; bytes: number }>; request: (id: string, method: string, params: unknown) => Promise<any> }> {
  const sock = net.createConnection(w.d.socket);
  await new Promise((r, j) => (sock.once('connect', r), sock.once('error', j)));
  const frames: Array<{ msg: any; bytes: number }> = [];
  let buf = Buffer.alloc(0);
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
      const n = buf.readUInt32BE(0);
      frames.push({ msg: JSON.parse(buf.subarray(4, 4 + n).toString('utf8')), bytes: 4 + n });
      buf = buf.subarray(4 + n);
    }
  });
  sock.write(hello);
  const response = async (id: string) => {
    for (let i = 0; i < 3000; i++, await new Promise((r) => setTimeout(r, 10))) {
      const f = frames.find((x) => x.msg.type === 'response' && x.msg.id === id);
      if (f) return f.msg;
    }
    throw new Error(`no response to ${id}`);
  };
  return {
    sock,
    frames,
    request: async (id, method, params) => {
      sock.write(frame(JSON.stringify({ type: 'request', id, method, params })));
      return response(id);
    },
  };
}

/** The unified diff printed from its `--- path` line, unindented, up to the first line that is not part of it. */
function printedDiff(text: string, path: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(`    --- ${path}`);
  assert.ok(start >= 0, `a --- ${path} header in:\n${text}`);
  const body: string[] = [];
  for (let i = start; i < lines.length && /^    [-+ @\\]/.test(lines[i]!); i++) body.push(lines[i]!.slice(4));
  return body.join('\n') + '\n';
}

describe('previews read like a plan', () => {
  test('a file edit shows the unified diff diff -u prints: ---/+++ headers, @@ hunks with context', async () => {
    const old = '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n10.0.0.1\tgateway\n10.0.0.2\tfiles\n10.0.0.3\tprinter\n10.0.0.4\tbackup\n10.0.0.5\tmail\n';
    writeFileSync(hostFile('/etc/hosts'), old, { mode: 0o644 });
    const r = await cliAs(agent.identity, ['preview', 'AddHostsEntry', '--param', 'ip=10.0.0.12', '--param', 'names:=["db.internal","db"]']);
    assert.equal(r.code, 0, r.stderr);
    const dir = mkdtempSync(join(tmpdir(), 'airlock-out-'));
    try {
      writeFileSync(join(dir, 'old'), old);
      writeFileSync(join(dir, 'new'), old + '10.0.0.12\tdb.internal db\n');
      const expected = spawnSync('/usr/bin/diff', ['-u', join(dir, 'old'), join(dir, 'new')], { encoding: 'utf8' }).stdout.split('\n').slice(2).join('\n');
      const shown = printedDiff(r.stdout, '/etc/hosts');
      assert.match(shown, /^--- \/etc\/hosts\n\+\+\+ \/etc\/hosts\n/);
      assert.equal(shown.split('\n').slice(2).join('\n'), expected, `the hunks diff -u prints, context included:\n${r.stdout}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.match(r.stdout, /^Map db\.internal, db to 10\.0\.0\.12 in \/etc\/hosts\n {2}AddHostsEntry, medium risk, needs dev /, 'the summary line, then action, risk and role');
    assert.match(r.stdout, /^ {4}edit \/etc\/hosts /m, 'the mechanism, compact');
    assert.doesNotMatch(r.stdout, /"ip": "10\.0\.0\.12"/, 'no raw JSON without -v');
    const v = await cliAs(agent.identity, ['preview', 'AddHostsEntry', '--param', 'ip=10.0.0.13', '--param', 'names:=["db2"]', '-v']);
    assert.match(v.stdout, /"ip": "10\.0\.0\.13"/, '-v shows the parameters as JSON');
  });

  test('AddAuthorizedKey shows the key with the fingerprint ssh-keygen -lf prints, in the preview and at approval', async () => {
    await w.d.box.run('/usr/sbin/useradd', ['-m', '--', 'deploy']);
    const dir = mkdtempSync(join(tmpdir(), 'airlock-key-'));
    try {
      execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'deploy@laptop', '-f', join(dir, 'k')]);
      const key = readFileSync(join(dir, 'k.pub'), 'utf8').trim();
      const fingerprint = execFileSync('/usr/bin/ssh-keygen', ['-lf', join(dir, 'k.pub')], { encoding: 'utf8' }).trim();
      const sha = fingerprint.split(' ')[1]!;
      const r = await cliAs(agent.identity, ['preview', 'AddAuthorizedKey', '--param', 'user=deploy', '--param', `key=${key}`]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes(`key ${fingerprint}`), `the line ssh-keygen -lf prints (${fingerprint}):\n${r.stdout}`);
      assert.match(r.stdout, new RegExp(`^Authorize ssh-ed25519 key ${sha.replace(/[+/]/g, '\\$&')} \\(deploy@laptop\\) for deploy$`, 'm'), 'the summary names the key by its fingerprint');
      assert.match(r.stdout, new RegExp(`^ {4}\\+ssh-ed25519 ${sha.replace(/[+/]/g, '\\$&')} deploy@laptop$`, 'm'), 'the diff line names it too');
      // history says what changed per transaction: the key, by its fingerprint.
      const h = await cliAs(agent.identity, ['history', '--limit', '1']);
      assert.ok(h.stdout.includes(sha.slice(0, 16)), h.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('run prints the preview once, also when the person approves it themselves', async () => {
    const code = await w.codes.code('alice');
    const r = await atTerminal(human.identity, ['run', 'CreateGroup', '--param', 'group=oncegrp'], [
      ['Code from your authenticator app', code],
      ['Approve CreateGroup', 'y'],
    ]);
    assert.equal(r.code, 0, r.out);
    assert.equal(r.out.split('what changes').length - 1, 1, `the preview once:\n${r.out}`);
    assert.match(r.out, /previewing CreateGroup\.\.\./);
    assert.match(r.out, /executing CreateGroup tx_[0-9a-f]{24}\.\.\./);
    assert.match(r.out, /Succeeded Create group oncegrp/);
    assert.match(r.out, /done in \d+\.\ds/);
  });
});

describe('execute streams its output', () => {
  test('a short read streams nothing: its output, ended within the first batch, comes in the result alone', async () => {
    const c = await raw();
    try {
      const p = (await c.request('p', 'preview', { action_name: 'Uptime', params: {} })).result as PreviewResult;
      assert.ok(p.auto_approval, 'a non-sensitive read the policy approves');
      const r = (await c.request('x', 'execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: p.auto_approval!.receipt })).result as ResultEnvelope;
      assert.equal(r.state, 'Succeeded');
      assert.equal(r.output.length, 2, '/proc/uptime and /proc/loadavg, a line each');
      assert.deepEqual(c.frames.filter((f) => f.msg.type === 'notification'), [], 'no notice: the result carries the output');
    } finally {
      c.sock.destroy();
    }
  });

  test('output notices come before the result, carry the lines the result carries, and the CLI prints them once', async () => {
    const c = await raw();
    try {
      const p = (await c.request('p', 'preview', { action_name: 'ListInstalledPackages', params: {} })).result as PreviewResult;
      assert.ok(p.auto_approval, 'a non-sensitive read the policy approves');
      const res = await c.request('x', 'execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: p.auto_approval!.receipt });
      const r = res.result as ResultEnvelope;
      assert.equal(r.state, 'Succeeded');
      assert.ok(r.output.length > 50, 'a read with many lines');
      const at = c.frames.findIndex((f) => f.msg.type === 'response' && f.msg.id === 'x');
      const notices = c.frames.slice(0, at).map((f) => f.msg as OutputNotice).filter((m) => m.type === 'notification');
      assert.ok(notices.length > 0, 'notices before the result');
      assert.ok(notices.every((n) => n.event === 'output' && n.request_id === 'x' && n.transaction_id === p.transaction_id && !('id' in n)), 'each names its request, and has no id a client would take for a response');
      assert.deepEqual(notices.flatMap((n) => n.lines), r.output, 'the same lines as the result');
      assert.equal(notices.at(-1)!.last, true);
      assert.equal(c.frames.slice(at).filter((f) => f.msg.type === 'notification').length, 0, 'nothing after the result');
    } finally {
      c.sock.destroy();
    }
    const cli = await cliAs(agent.identity, ['run', 'ListInstalledPackages']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stderr.split('what changes').length - 1, 1, 'the preview once');
    const first = cli.stdout.split('\n')[0]!;
    assert.match(first, /^ {2}\S/, 'streamed output first');
    assert.equal(cli.stdout.split('\n').filter((l) => l === first).length, 1, 'output printed once, not again with the result');
    assert.match(cli.stdout, /^Succeeded List installed packages/m);
  });

  test('a long job streams its output while it runs: apt-get update, its lines long before its result', async () => {
    const cl = await AirlockClient.connect(w.d.socket); // root, on the real socket
    try {
      const p = await cl.preview('AptUpdate', {});
      const cara = await w.as('cara', ['airlock-admin', 'airlock-approvers']);
      const g = grantOf(await cara.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: await w.codes.code('cara') }));
      const seen: Array<{ at: number; lines: string[] }> = [];
      const r = await cl.execute(p.transaction_id, p.action_name, p.params, g.receipt, (n) => seen.push({ at: Date.now(), lines: n.lines }));
      const done = Date.now();
      assert.equal(r.state, 'Succeeded', JSON.stringify(r));
      const first = seen.find((n) => n.lines.length > 0);
      assert.ok(first, 'output notices came');
      assert.match(first.lines[0]!, /^(Get|Hit|Ign):\d+ /, 'apt output, as it prints it');
      assert.ok(done - first.at >= 200, `the first lines came ${done - first.at} ms before the result`);
      assert.deepEqual(seen.flatMap((n) => n.lines), r.output, 'the same lines as the result');
    } finally {
      cl.close();
    }
  });

  test('a client that never reads: the execution finishes, the daemon queues at most its bound of notices, and the rest is counted', async () => {
    const lines = 9000;
    await w.d.box.run('/usr/bin/mkdir', ['-p', '/etc/sysctl.d']);
    writeFileSync(hostFile('/etc/sysctl.d/99-big.conf'), Array.from({ length: lines }, (_, i) => `# line ${String(i).padStart(5, '0')} ${'z'.repeat(36)}`).join('\n') + '\n', { mode: 0o644 });
    const c = await raw();
    try {
      const p = (await c.request('p', 'preview', { action_name: 'ReadConfigFile', params: { path: '/etc/sysctl.d/99-big.conf' } })).result as PreviewResult;
      assert.equal(p.auto_approval, undefined, 'a sensitive read waits for a person');
      // A request under root's own account is approved with the approver's code.
      const bea = await w.as('bea', ['airlock-admin', 'airlock-approvers']);
      const g = grantOf(await bea.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: await w.codes.code('bea') }));
      const root = await w.root();
      c.sock.pause(); // from here on the client reads nothing
      c.sock.write(frame(JSON.stringify({ type: 'request', id: 'x', method: 'execute', params: { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt } })));
      let state = '';
      for (let i = 0; i < 300 && state !== 'Succeeded'; i++, await new Promise((r) => setTimeout(r, 100))) state = (await root.call('transaction.get', { transaction_id: p.transaction_id })).state;
      assert.equal(state, 'Succeeded', 'the execution finished while its client read nothing');
      assert.equal(c.frames.filter((f) => f.msg.type === 'response' && f.msg.id === 'x').length, 0, 'nothing was read yet');
      c.sock.resume();
      for (let i = 0; i < 500 && !c.frames.some((f) => f.msg.id === 'x'); i++) await new Promise((r) => setTimeout(r, 10));
      const res = c.frames.find((f) => f.msg.id === 'x')!.msg;
      assert.equal((res.result as ResultEnvelope).state, 'Succeeded');
      assert.equal((res.result as ResultEnvelope).output.length, 2000, 'the result carries what its cap keeps');
      const notices = c.frames.filter((f) => f.msg.type === 'notification');
      const bytes = notices.reduce((n, f) => n + f.bytes, 0);
      const streamed = notices.reduce((n, f) => n + f.msg.lines.length, 0);
      const dropped = notices.reduce((n, f) => n + f.msg.not_streamed, 0);
      const fileBytes = lines * 50;
      // What waited for the client: the kernel's socket buffers plus the daemon's bound, never the whole output.
      assert.ok(bytes < fileBytes * 0.8, `notices sent ${bytes} bytes of a ${fileBytes}-byte output (bound ${MAX_UNSENT_NOTICE_BYTES} unsent in the daemon)`);
      assert.ok(dropped > 0, 'lines not streamed are counted');
      assert.equal(streamed + dropped, lines, 'every line streamed or counted');
      assert.equal(notices.at(-1)!.msg.last, true, 'the last notice still comes');
    } finally {
      c.sock.destroy();
    }
  });
});
