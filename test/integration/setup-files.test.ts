/**
 * `airlock setup`, against a temporary HOME and project folder, run as a real process
 * (node bin/airlock.js setup ...) for each client: a fresh write, a merge into files that hold
 * the person's own servers, settings and guidance, a malformed file refused and left
 * byte-for-byte as it was, a dry run that writes nothing, an uninstall that removes only what
 * setup added, an idempotent second run, and every file parsed in its client's own format.
 * The editors underneath (JSON/JSONC in place, TOML blocks, guidance markers) are tested
 * directly for the cases a process run would make slow to list.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { encodeFrame } from '../../src/protocol/framing.js';
import { typeAt } from '../support/terminal.js';
import { assertStillLeads, readState } from '../../src/cli/setup/files.js';
import { dropJsonServer, putJsonServer } from '../../src/cli/setup/json-edit.js';
import { parseJson } from '../../src/cli/setup/json-parse.js';
import { dropBlock, MARKDOWN, putBlock } from '../../src/cli/setup/markers.js';
import { isOurEntry } from '../../src/cli/setup/server.js';
import { dropTomlServer, putTomlServer } from '../../src/cli/setup/toml-edit.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'airlock.js');
const scratch = mkdtempSync(join(tmpdir(), 'airlock-setup-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;
/** A fresh HOME and project folder. */
function dirs(): { home: string; project: string } {
  const base = join(scratch, String(n++));
  const d = { home: join(base, 'home'), project: join(base, 'project') };
  mkdirSync(d.home, { recursive: true });
  mkdirSync(d.project, { recursive: true });
  return d;
}

/** `airlock setup ARGS` as a process, in the project folder, with only the environment given (no terminal). */
function setup(d: { home: string; project: string }, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, 'setup', ...args], {
    cwd: d.project,
    env: { HOME: d.home, PATH: join(d.home, 'no-such-bin'), NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) as SetupJson };
}
interface SetupJson {
  ok: boolean;
  server: { command: string; args: string[]; env: Record<string, string> };
  clients: Array<{ client: string; files: Array<{ path: string; kind: string; action: string; reason?: string; mode?: string }> }>;
  checks: Array<{ name: string; ok: boolean; detail: string; fix?: string }> | null;
}
const actions = (j: SetupJson) => Object.fromEntries(j.clients.flatMap((c) => c.files.map((f) => [f.path, f.action])));

const read = (p: string) => readFileSync(p, 'utf8');
/** TOML as Codex reads it (smol-toml's tables have no prototype: made plain to compare). */
const toml = (text: string): any => JSON.parse(JSON.stringify(parseToml(text)));
const write = (p: string, text: string) => (mkdirSync(dirname(p), { recursive: true }), writeFileSync(p, text));
/** Every file under a folder, with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of existsSync(d) ? readdirSync(d) : []) {
      const p = join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else out[p] = st.isSymbolicLink() ? `-> ${readlinkSync(p)}` : read(p);
    }
  };
  walk(dir);
  return out;
}

/** Where each client's files go in project scope. */
const FILES = (d: { home: string; project: string }) => ({
  claude: { mcp: join(d.project, '.mcp.json'), guidance: join(d.project, 'CLAUDE.md') },
  cursor: { mcp: join(d.project, '.cursor', 'mcp.json'), guidance: join(d.project, '.cursor', 'rules', 'airlock.mdc') },
  codex: { mcp: join(d.home, '.codex', 'config.toml'), guidance: join(d.project, 'AGENTS.md') },
  vscode: { mcp: join(d.project, '.vscode', 'mcp.json'), guidance: join(d.project, '.github', 'copilot-instructions.md') },
});
type ClientId = keyof ReturnType<typeof FILES>;
const CLIENTS: ClientId[] = ['claude', 'cursor', 'codex', 'vscode'];

/** The server entry as its client reads it: JSON (VS Code: JSON with comments), or Codex's TOML. */
function entryOf(client: ClientId, path: string): Record<string, any> {
  const text = read(path);
  if (client === 'codex') return toml(text).mcp_servers.airlock;
  const doc = client === 'vscode' ? (parseJson(text, true).value as any) : JSON.parse(text);
  return doc[client === 'vscode' ? 'servers' : 'mcpServers'].airlock;
}

for (const client of CLIENTS) {
  test(`${client}: a fresh write in its own format, an idempotent second run, and an uninstall that leaves nothing`, () => {
    const d = dirs();
    const f = FILES(d)[client];
    const sock = join(d.home, 'airlock.sock');
    const r = setup(d, [`--${client}`, '--socket', sock, '--json']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const j = r.json();
    assert.deepEqual(actions(j), { [f.mcp]: 'create', [f.guidance]: 'create' });

    const e = entryOf(client, f.mcp);
    assert.equal(e.command, process.execPath);
    assert.deepEqual(e.args, [BIN, 'mcp-server']);
    assert.deepEqual(e.env, { AIRLOCK_SOCKET: sock });
    if (client === 'vscode' || client === 'claude') assert.equal(e.type, 'stdio');
    if (client === 'codex') assert.equal(e.tool_timeout_sec, 1800, 'longer than the longest approval wait and a long step');
    const guidance = read(f.guidance);
    assert.match(guidance, /<!-- BEGIN airlock[^\n]*-->\n[\s\S]*airlock_propose[\s\S]*never an approval[\s\S]*Never ask the person for a receipt[\s\S]*\n<!-- END airlock -->\n$/);
    if (client === 'cursor') assert.match(guidance, /^---\ndescription: .+\nalwaysApply: true\n---\n/);

    const files = { ...snapshot(d.home), ...snapshot(d.project) };
    const again = setup(d, [`--${client}`, '--socket', sock, '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(Object.values(actions(again.json())), ['unchanged', 'unchanged']);
    assert.deepEqual({ ...snapshot(d.home), ...snapshot(d.project) }, files, 'a second run changes no byte');

    const gone = setup(d, ['--uninstall', `--${client}`, '--json']);
    assert.equal(gone.code, 0, gone.stderr);
    assert.deepEqual(actions(gone.json()), { [f.mcp]: 'delete', [f.guidance]: 'delete' });
    assert.deepEqual({ ...snapshot(d.home), ...snapshot(d.project) }, {}, 'the files and the folders setup made are gone');
    for (const dir of ['.cursor', '.vscode', '.github']) assert.ok(!existsSync(join(d.project, dir)), dir);
    assert.ok(!existsSync(join(d.home, '.codex')));
  });
}

/** Each client's files as a person already has them: other servers, other settings, their own guidance. */
function theirs(d: { home: string; project: string }) {
  const f = FILES(d);
  const files: Record<string, string> = {
    [f.claude.mcp]: '{\n    "mcpServers": {\n        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "ghp_x"}}\n    }\n}\n',
    [f.claude.guidance]: '# Project notes\n\nRun `make test` before committing.\n',
    [f.cursor.mcp]: '{"mcpServers":{"browser":{"command":"npx","args":["browser-mcp"]}},"x-note":"mine"}',
    [f.cursor.guidance]: '---\ndescription: my own rule, under the name setup uses\nalwaysApply: false\n---\nUse tabs.\n',
    [f.codex.mcp]: '# my Codex settings\nmodel = "o4-mini"\napproval_policy = "on-request"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # local docs\nargs = ["--port", "0"]\n\n[profiles.fast]\nmodel = "o4-mini"\n',
    [f.codex.guidance]: '# AGENTS\n\n- keep diffs small\n',
    [f.vscode.mcp]: '// servers for this workspace\n{\n  "inputs": [{ "type": "promptString", "id": "key", "password": true }],\n  "servers": {\n    "fs": { "type": "stdio", "command": "npx", "args": ["fs-mcp"] }, // the file server\n  },\n}\n',
    [f.vscode.guidance]: 'Prefer small functions.',
  };
  for (const [p, t] of Object.entries(files)) write(p, t);
  return files;
}

test('merge: the person\'s other servers, settings and guidance stay; uninstall gives every file back byte for byte', () => {
  const d = dirs();
  const f = FILES(d);
  const before = theirs(d);
  const r = setup(d, ['--all', '--json']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.equal(Object.values(actions(r.json())).length, 8);
  assert.ok(Object.values(actions(r.json())).every((a) => a === 'update'), JSON.stringify(actions(r.json())));

  const claude = JSON.parse(read(f.claude.mcp));
  assert.deepEqual(Object.keys(claude.mcpServers), ['github', 'airlock']);
  assert.equal(claude.mcpServers.github.env.GITHUB_TOKEN, 'ghp_x');
  assert.ok(read(f.claude.mcp).startsWith('{\n    "mcpServers": {\n        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "ghp_x"}},\n        "airlock": {\n            "type": "stdio",'), 'their line as it was, ours in their indentation');
  const cursor = JSON.parse(read(f.cursor.mcp));
  assert.deepEqual(Object.keys(cursor.mcpServers), ['browser', 'airlock']);
  assert.equal(cursor['x-note'], 'mine');
  assert.equal(cursor.mcpServers.airlock.type, undefined, 'Cursor entries carry no type');
  const codex = toml(read(f.codex.mcp));
  assert.equal(codex.model, 'o4-mini');
  assert.equal(codex.approval_policy, 'on-request');
  assert.deepEqual(codex.mcp_servers.docs, { command: 'docs-mcp', args: ['--port', '0'] });
  assert.deepEqual(codex.profiles, { fast: { model: 'o4-mini' } });
  assert.ok(read(f.codex.mcp).startsWith(before[f.codex.mcp]!), 'their TOML, comments included, unchanged above the block');
  const vscode = parseJson(read(f.vscode.mcp), true).value as any;
  assert.deepEqual(Object.keys(vscode.servers), ['fs', 'airlock']);
  assert.equal(vscode.inputs[0].id, 'key');
  assert.match(read(f.vscode.mcp), /^\/\/ servers for this workspace\n/);
  assert.match(read(f.vscode.mcp), /\/\/ the file server/);
  for (const g of [f.claude.guidance, f.codex.guidance, f.vscode.guidance, f.cursor.guidance]) {
    assert.ok(read(g).startsWith(before[g]!), `${g}: their text first, as it was`);
    assert.match(read(g), /<!-- END airlock -->\n?$/);
  }

  const again = setup(d, ['--all', '--json']);
  assert.ok(Object.values(actions(again.json())).every((a) => a === 'unchanged'));

  const gone = setup(d, ['--uninstall', '--json']);
  assert.equal(gone.code, 0, gone.stderr);
  assert.ok(Object.values(actions(gone.json())).every((a) => a === 'remove'), JSON.stringify(actions(gone.json())));
  assert.deepEqual({ ...snapshot(d.home), ...snapshot(d.project) }, before, 'every file exactly as the person had it');
});

test('a file setup cannot parse is refused, named with the reason, and left byte for byte; that client gets nothing', () => {
  const d = dirs();
  const f = FILES(d);
  const broken: Record<string, string> = {
    [f.claude.mcp]: '{ "mcpServers": { "github": { "command": "npx" }\n',
    [f.cursor.mcp]: '{"mcpServers": [] }',
    [f.codex.mcp]: '[mcp_servers.docs\ncommand = "docs-mcp"\n',
    [f.vscode.mcp]: '{\n  "servers": {\n    "airlock": { "command": "/usr/local/bin/someone-elses-airlock" }\n  }\n}\n',
  };
  for (const [p, t] of Object.entries(broken)) write(p, t);
  const r = setup(d, ['--all', '--json']);
  assert.equal(r.code, 6, r.stderr + r.stdout);
  const j = r.json();
  assert.equal(j.ok, false);
  const byPath = Object.fromEntries(j.clients.flatMap((c) => c.files.map((x) => [x.path, x])));
  assert.match(byPath[f.claude.mcp]!.reason!, /\.mcp\.json: it is not valid JSON: .* at line 2/);
  assert.match(byPath[f.cursor.mcp]!.reason!, /its "mcpServers" is not an object/);
  assert.match(byPath[f.codex.mcp]!.reason!, /config\.toml: it is not valid TOML/);
  assert.match(byPath[f.vscode.mcp]!.reason!, /already has a server named "airlock" that airlock setup did not write/);
  for (const c of CLIENTS) {
    assert.equal(byPath[FILES(d)[c].mcp]!.action, 'refused');
    assert.equal(byPath[FILES(d)[c].guidance]!.action, 'held', `${c}: its guidance is not written alone`);
  }
  assert.deepEqual({ ...snapshot(d.home), ...snapshot(d.project) }, broken, 'nothing written, nothing changed');

  const human = setup(d, ['--claude']);
  assert.equal(human.code, 6);
  assert.match(human.stdout, new RegExp(`refused +${f.claude.mcp.replace(/[.]/g, '\\.')}[\\s\\S]*it is not valid JSON`));
  const un = setup(d, ['--uninstall', '--json']);
  assert.equal(un.code, 6, 'uninstall does not touch them either');
  assert.deepEqual({ ...snapshot(d.home), ...snapshot(d.project) }, broken);
});

test('a dry run reports every change and writes nothing, fresh or merging', () => {
  const d = dirs();
  const r = setup(d, ['--all', '--dry-run', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(Object.values(actions(r.json())).every((a) => a === 'create'));
  assert.deepEqual({ ...snapshot(d.home), ...snapshot(d.project) }, {});
  const before = theirs(d);
  const m = setup(d, ['--all', '--dry-run']);
  assert.equal(m.code, 0, m.stderr);
  assert.match(m.stdout, /dry run: nothing is written/);
  assert.equal((m.stdout.match(/~ update/g) ?? []).length, 8);
  assert.deepEqual({ ...snapshot(d.home), ...snapshot(d.project) }, before);
});

test('a token goes only into the account\'s own files, mode 0600, and is never printed', () => {
  const d = dirs();
  const token = 'alt1_' + 'k'.repeat(40);
  const env = { AIRLOCK_TOKEN: token, AIRLOCK_SOCKET: 'tcp:127.0.0.1:7070' };
  const refused = setup(d, ['--claude', '--json'], env);
  assert.equal(refused.code, 2);
  assert.match(refused.stdout, /--user/);
  assert.deepEqual(snapshot(d.project), {});

  write(join(d.home, '.claude.json'), '{\n  "numStartups": 3,\n  "projects": {}\n}\n');
  chmodSync(join(d.home, '.claude.json'), 0o644);
  const r = setup(d, ['--all', '--user', '--json'], env);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.ok(!r.stdout.includes(token), 'the token is not printed');
  const servers = [
    [join(d.home, '.claude.json'), 'claude'],
    [join(d.home, '.cursor', 'mcp.json'), 'cursor'],
    [join(d.home, '.codex', 'config.toml'), 'codex'],
    [join(d.home, '.config', 'Code', 'User', 'mcp.json'), 'vscode'],
  ] as const;
  for (const [p, c] of servers) {
    assert.equal(statSync(p).mode & 0o777, 0o600, p);
    assert.deepEqual(entryOf(c, p).env, env, p);
  }
  assert.equal(JSON.parse(read(join(d.home, '.claude.json'))).numStartups, 3);
  assert.match(read(join(d.home, '.claude', 'CLAUDE.md')), /BEGIN airlock/);
  assert.match(read(join(d.home, '.codex', 'AGENTS.md')), /BEGIN airlock/);
  assert.deepEqual(snapshot(d.project), {}, 'nothing in the project folder');
  // Something else (the client, a dotfiles tool) made a file with the token world-readable: running setup again, with nothing to change, closes it.
  chmodSync(join(d.home, '.claude.json'), 0o644);
  const again = setup(d, ['--claude', '--user', '--json'], env);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.equal(statSync(join(d.home, '.claude.json')).mode & 0o777, 0o600, 'a token is never left readable by others');
});

test('without a client option, setup configures the clients it finds; none found is a usage error', () => {
  const d = dirs();
  const none = setup(d, ['--json']);
  assert.equal(none.code, 2);
  assert.match(none.stdout, /found none of Claude Code, Cursor, Codex CLI or VS Code/);
  const bin = join(d.home, 'bin');
  for (const name of ['claude', 'codex']) (write(join(bin, name), '#!/bin/sh\n'), chmodSync(join(bin, name), 0o755));
  write(join(bin, 'code'), 'not executable');
  const r = setup(d, ['--json', '--yes'], { PATH: bin });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.deepEqual(r.json().clients.map((c) => c.client), ['claude', 'codex']);
});

test('a symlinked configuration is followed: the link stays, its target is merged', () => {
  const d = dirs();
  const target = join(d.home, 'dotfiles', 'cursor-mcp.json');
  write(target, '{\n  "mcpServers": {}\n}\n');
  mkdirSync(join(d.home, '.cursor'));
  symlinkSync(target, join(d.home, '.cursor', 'mcp.json'));
  const r = setup(d, ['--cursor', '--user', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(lstatSync(join(d.home, '.cursor', 'mcp.json')).isSymbolicLink());
  assert.deepEqual(Object.keys(JSON.parse(read(target)).mcpServers), ['airlock']);
});

test('a symlink another account planted is not followed: not to a file, not to a new one, not through a folder', () => {
  // The project folder is one another account (the agent) can write in; setup runs as someone else (here root, as with sudo).
  const d = dirs();
  const victim = join(scratch, `victim-${n}`);
  mkdirSync(victim);
  write(join(victim, 'notes.md'), 'not yours\n');
  const other = 4242;
  const plant = (target: string, link: string) => (mkdirSync(dirname(link), { recursive: true }), symlinkSync(target, link), lchownSync(link, other, other));
  plant(join(victim, 'notes.md'), join(d.project, 'CLAUDE.md'));
  plant(join(victim, 'created-by-setup'), join(d.project, '.mcp.json'));
  plant(victim, join(d.project, '.cursor'));
  const before = snapshot(victim);
  const r = setup(d, ['--claude', '--cursor', '--json', '--yes']);
  assert.equal(r.code, 6, r.stderr + r.stdout);
  const files = r.json().clients.flatMap((c) => c.files);
  for (const f of files) assert.ok(['refused', 'held'].includes(f.action), `${f.path}: ${f.action}`);
  for (const p of [join(d.project, 'CLAUDE.md'), join(d.project, '.mcp.json'), join(d.project, '.cursor', 'mcp.json')]) {
    assert.match(files.find((f) => f.path === p)!.reason!, /symbolic link .*uid 4242/, p);
  }
  assert.deepEqual(snapshot(victim), before, 'nothing written where the links pointed');
  assert.ok(lstatSync(join(d.project, 'CLAUDE.md')).isSymbolicLink(), 'the links stay as they were');
});

test('a folder swapped for a link between the plan and the write is caught before anything is written', () => {
  const d = dirs();
  const elsewhere = join(scratch, `elsewhere-${n}`);
  mkdirSync(elsewhere);
  write(join(d.project, '.cursor', 'mcp.json'), '{}\n');
  const s = readState(join(d.project, '.cursor', 'mcp.json'));
  assert.ok(s.ok);
  assertStillLeads(s);
  // While setup waits for "Write these? [Y/n]", the folder becomes a link (even one of this account's own).
  rmSync(join(d.project, '.cursor'), { recursive: true });
  symlinkSync(elsewhere, join(d.project, '.cursor'));
  assert.throws(() => assertStillLeads(s), /led to .* when it was read and leads to .*elsewhere/);
});

test('at a terminal setup shows the plan and asks first; "n" writes nothing, --yes asks nothing', { skip: !existsSync('/usr/bin/script') && 'needs script(1)' }, async () => {
  const d = dirs();
  const cmd = `cd ${d.project} && env HOME=${d.home} ${process.execPath} ${BIN} setup --claude`;
  const no = await typeAt(cmd, [['Write these? [Y/n]', 'n']]);
  assert.equal(no.code, 0, no.out);
  assert.match(no.out, /\+ create +[^\n]*\.mcp\.json[\s\S]*Write these\? \[Y\/n\][\s\S]*nothing was written/);
  assert.deepEqual(snapshot(d.project), {});
  const yes = await typeAt(cmd, [['Write these? [Y/n]', '']]);
  assert.equal(yes.code, 0, yes.out);
  assert.match(yes.out, /done/);
  assert.ok(existsSync(join(d.project, '.mcp.json')) && existsSync(join(d.project, 'CLAUDE.md')));
  const quiet = await typeAt(`${cmd} --uninstall --yes`, []);
  assert.equal(quiet.code, 0, quiet.out);
  assert.doesNotMatch(quiet.out, /\[Y\/n\]/);
  assert.deepEqual(snapshot(d.project), {});
});

/** A stand-in daemon on a Unix socket: it sends what the real one sends at accept (a refusal) or after the hello (a welcome). */
async function fakeDaemon(path: string, answer: 'no_role' | 'dev'): Promise<net.Server> {
  const server = net.createServer((sock) => {
    if (answer === 'no_role') {
      sock.end(encodeFrame({ type: 'response', id: null, ok: false, error: { category: 'authorization', code: 'no_role', message: 'you are in no airlock group, so the daemon will not talk to you' } }));
      return;
    }
    sock.once('data', () =>
      sock.write(
        encodeFrame({
          type: 'welcome',
          protocol: 'lacs/0.1',
          server: 'airlock',
          version: '0.1.0',
          capabilities: [],
          principal: { uid: 1234, user: 'agent', via: 'unix', role: 'dev', approver: false },
          limits: { max_frame: 1048576, idle_timeout_ms: 120000, max_output_lines: 200 },
        }),
      ),
    );
    sock.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

test('the checks: Node, the socket, and the role the daemon gives this account, each with the fix', async () => {
  const d = dirs();
  const missing = setup(d, ['--codex', '--socket', join(d.home, 'none.sock'), '--json']).json();
  const byName = (j: SetupJson) => Object.fromEntries(j.checks!.map((k) => [k.name, k]));
  assert.equal(byName(missing).node!.ok, true);
  assert.equal(byName(missing).socket!.ok, false);
  assert.match(byName(missing).socket!.detail, /no daemon socket at .*none\.sock: start the daemon: sudo systemctl start airlock/);

  const sock = join(d.home, 'd.sock');
  const noRole = await fakeDaemon(sock, 'no_role');
  try {
    const r = spawnSetupAsync(d, ['--codex', '--socket', sock, '--json']);
    const role = byName(await r).role!;
    assert.equal(role.ok, false);
    assert.match(role.detail, /^the agent's account \(\S+\) is in no airlock group: sudo usermod -aG airlock-dev \S+, then log in again$/);
  } finally {
    noRole.close();
  }
  rmSync(sock, { force: true });
  const dev = await fakeDaemon(sock, 'dev');
  try {
    const role = byName(await spawnSetupAsync(d, ['--codex', '--socket', sock, '--json'])).role!;
    assert.equal(role.ok, true, role.detail);
    assert.match(role.detail, /the daemon sees agent \(uid 1234, via unix\) with the role dev/);
  } finally {
    dev.close();
  }
});

/** The same process, without blocking this one's event loop (the stand-in daemon answers from it). */
async function spawnSetupAsync(d: { home: string; project: string }, args: string[]): Promise<SetupJson> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [BIN, 'setup', ...args], { cwd: d.project, env: { HOME: d.home, PATH: '', NO_COLOR: '1' }, timeout: 60_000 }, (err, stdout, stderr) =>
      err && err.code !== 0 && err.code !== 6 ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    ),
  );
}

// The editors, directly.
const ENTRY = { command: '/usr/bin/node', args: ['/opt/airlock/bin/airlock.js', 'mcp-server'] };
const json = (container: string, jsonc = false) => ({ container, name: 'airlock', entry: ENTRY, jsonc, isOurs: isOurEntry });

test('JSON in place: indentation, compact files, JSONC comments and trailing commas kept; put then drop is the identity', () => {
  const docs: Array<[string, string, boolean]> = [
    ['mcpServers', '{\n\t"other": 1\n}', false],
    ['mcpServers', '{"a":1,"mcpServers":{"x":{"command":"y"}}}', false],
    ['servers', '// mine\n{\n  "servers": {\n    // fs\n    "fs": { "command": "npx" }, // trailing\n  },\n}\n', true],
    ['servers', '{\n  "servers": {\n    /* nothing yet */\n  }\n}\n', true],
    ['mcpServers', '{\n  "airlock": 1,\n  "mcpServers": {\n    "b": {}\n  }\n}\n', false],
  ];
  for (const [container, text, jsonc] of docs) {
    const put = putJsonServer(text, json(container, jsonc));
    assert.ok(put.ok && put.text, text);
    const doc = parseJson(put.text!, jsonc).value as any;
    assert.deepEqual(doc[container].airlock, ENTRY, text);
    assert.deepEqual(putJsonServer(put.text, json(container, jsonc)), put, 'idempotent');
    assert.deepEqual(dropJsonServer(put.text, json(container, jsonc)), { ok: true, text }, text);
  }
  assert.equal((putJsonServer('{\n\t"other": 1\n}', json('mcpServers')) as any).text, '{\n\t"other": 1,\n\t"mcpServers": {\n\t\t"airlock": {\n\t\t\t"command": "/usr/bin/node",\n\t\t\t"args": [\n\t\t\t\t"/opt/airlock/bin/airlock.js",\n\t\t\t\t"mcp-server"\n\t\t\t]\n\t\t}\n\t}\n}');
  // Strict JSON files are read strictly; a JSONC file still parses as what VS Code reads.
  assert.match((putJsonServer('{ "a": 1, }', json('mcpServers')) as any).reason, /not valid JSON/);
  assert.equal(putJsonServer('{ "a": 1, }', json('servers', true)).ok, true);
  assert.match((putJsonServer('{"mcpServers": {"airlock": {"command": "uvx", "args": ["other"]}}}', json('mcpServers')) as any).reason, /did not write/);
  assert.match((putJsonServer('{"mcpServers": 1, "mcpServers": {}}', json('mcpServers')) as any).reason, /twice/);
  // Another checkout's entry is setup's own: replaced in place; someone else's is left alone by drop.
  const old = '{"mcpServers":{"airlock":{"command":"/old/node","args":["/srv/airlock/bin/airlock.js","mcp-server"]},"z":{}}}';
  assert.deepEqual(JSON.parse((putJsonServer(old, json('mcpServers')) as any).text).mcpServers, { airlock: ENTRY, z: {} });
  const foreign = '{"mcpServers":{"airlock":{"command":"uvx"}}}';
  assert.deepEqual(dropJsonServer(foreign, json('mcpServers')), { ok: true, text: foreign, note: 'its "airlock" server was not written by airlock setup; left alone' });
});

test('TOML block: comments and tables kept, an inline mcp_servers refused, foreign tables left alone', () => {
  const server = { command: '/usr/bin/node', args: ['/opt/airlock/bin/airlock.js', 'mcp-server'], tool_timeout_sec: 1800 };
  const mine = '# top\nmodel = "o3"\n\n[mcp_servers.x]\ncommand = "x" # why\n';
  const put = putTomlServer(mine, 'airlock', server);
  assert.ok(put.ok && put.text);
  assert.ok(put.text!.startsWith(mine));
  assert.deepEqual(toml(put.text!).mcp_servers.airlock, server);
  assert.deepEqual(putTomlServer(put.text, 'airlock', server), put);
  assert.deepEqual(dropTomlServer(put.text, 'airlock', isOurEntry), { ok: true, text: mine });
  const updated = putTomlServer(put.text, 'airlock', { ...server, env: { AIRLOCK_SOCKET: '/s' } });
  assert.ok(updated.ok && updated.text!.startsWith(mine) && (updated.text!.match(/BEGIN airlock/g) ?? []).length === 1, 'replaced in place');
  assert.match((putTomlServer('mcp_servers = { x = { command = "x" } }\n', 'airlock', server) as any).reason, /inline table/);
  assert.match((putTomlServer('[mcp_servers.airlock]\ncommand = "theirs"\n', 'airlock', server) as any).reason, /did not write/);
  assert.match((dropTomlServer('[mcp_servers.airlock]\ncommand = "theirs"\n', 'airlock', isOurEntry) as any).note, /left alone/);
  assert.deepEqual(dropTomlServer('# BEGIN airlock (x)\n[mcp_servers.airlock]\n', 'airlock', isOurEntry).ok, false, 'half a block is refused');
});

test('guidance markers: appended after the person\'s text, replaced in place, removed to the byte; broken markers refused', () => {
  for (const text of ['# Mine\n', '# Mine', 'a\n\n\nb\n']) {
    const put = putBlock(text, 'v1', MARKDOWN);
    assert.ok(put.ok && put.text!.startsWith(text));
    const v2 = putBlock(put.text, 'v2', MARKDOWN);
    assert.ok(v2.ok && v2.text!.includes('\nv2\n') && !v2.text!.includes('v1'));
    const dropped = dropBlock(v2.text, MARKDOWN);
    assert.deepEqual(dropped, { ok: true, text });
  }
  const twice = `${MARKDOWN.begin}\nx\n${MARKDOWN.end}\n${MARKDOWN.begin}\ny\n${MARKDOWN.end}\n`;
  assert.equal(putBlock(twice, 'z', MARKDOWN).ok, false);
  assert.equal(dropBlock(`${MARKDOWN.end}\n${MARKDOWN.begin}\n`, MARKDOWN).ok, false);
});
