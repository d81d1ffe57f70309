/**
 * Masked output, end to end (issue 11): secrets planted in real files, a real journal and a
 * real container of the booted Debian test bed are read by real catalogue read actions
 * through the real daemon, and neither door lets a planted value out:
 *
 * - the CLI, run as the agent's real Unix user (setpriv): `airlock preview --json`, then a
 *   person (another real user) approves, then `airlock execute --wait --json`, `airlock
 *   show` (text and --json) and `airlock history --json`;
 * - the real `airlock mcp-server`, run as the same user inside the bed and driven by the MCP
 *   SDK's client: airlock_propose, the person approves, airlock_execute (with its progress
 *   messages), airlock_status and airlock_history.
 *
 * Everything each door hands its client (every byte of stdout and stderr, every tool
 * result's text and structuredContent) must hold no planted value, nor any 16-character
 * piece of one; must hold `⟦secret:KIND⟧` where each value was; and must still carry the
 * rest of the file (an SSID, a unit's Description, the journal line's other words), so
 * masking that blanks a whole output does not pass. The values are random per run and
 * real-shaped (a GitHub `ghp_` token, AWS key id and secret key, an opaque bearer token),
 * never real credentials. Each case first checks from outside the daemon that the host
 * really holds its values, so a failure here means only one thing: a value got out.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { CATALOGUE } from '../../src/catalogue/index.js';
import type { Principal, UnixIdentity } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { startWorld, type World } from '../support/world.js';
import { startMcp, type McpSession } from '../support/mcp.js';
import { airlockAs } from '../support/cli.js';
import { makeImage } from '../scenarios/containers.js';
import type { SandboxView } from '../scenarios/types.js';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** n characters of `alphabet`, from crypto.randomBytes (the modulo bias does not matter for test data). */
function random(n: number, alphabet = BASE62): string {
  return [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** A value planted on the host, and where it stands in the text: what the masked output must show there. */
interface Secret {
  name: string;
  value: string;
  /** What precedes the value wherever the host prints it, e.g. `API_TOKEN=` (a regular expression's source). */
  before: string;
  /** What may stand between that and the mask (a quote, `Bearer `), as a regular expression's source. */
  gap?: string;
}
const MASK = '⟦secret:[a-z_]+⟧';
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const secret = (name: string, value: string, before: string): Secret => ({ name, value, before: literal(before) });

/** One planted file (or journal line, or container) and the reads that show it. */
interface Case {
  steps: Array<{ action_name: string; params: Record<string, unknown> }>;
  secrets: Secret[];
  /** Text of the same content that is no secret and must still come through. */
  kept: string[];
}

let w: World;
let view: SandboxView;
let agent: Principal;
let alice: Principal;
let mcp: McpSession;

before(async () => {
  w = await startWorld([], 'testbed');
  agent = await w.as('agent', ['airlock-dev']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  view = {
    run: (p, a) => w.d.box.run(p, a),
    readFile: (p) => w.d.box.readFile(p),
    writeFile: (p, content) => writeFile(`/proc/${w.d.box.pid}/root${p}`, content, { mode: 0o644 }),
  };
  mcp = await startMcp({ identity: agent.identity, insidePid: w.d.box.pid, env: { AIRLOCK_SOCKET: w.d.socket } });
});
after(async () => {
  await mcp?.close().catch(() => {});
  await w?.close();
});

async function must(program: string, args: string[]): Promise<string> {
  const r = await view.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** `airlock --socket S ARGS` as `who`, with no terminal. */
const cliAs = (who: UnixIdentity, args: string[]) => airlockAs(who, w.d.socket, args);

/** Every string in a JSON value (keys too), decoded: what a client reads once it parses the answer. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (out.push(k), strings(x, out));
  return out;
}
const parsed = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
};

/** A person approves the transaction from their own account, after reading the stored preview as their client does. */
async function approveAsPerson(id: string): Promise<void> {
  const { preview } = (await alice.call('transaction.get', { transaction_id: id })) as { preview: PreviewEnvelope };
  await w.approve(alice, preview);
}

/**
 * The attack's verdict on everything one door handed its client: `raw` is the bytes as
 * received, `decoded` the strings of any JSON in them.
 */
function assertMasked(door: string, raw: string, decoded: string[], c: Case): void {
  const all = `${raw}\n${decoded.join('\n')}`;
  // MASKING_TEST_DUMP=DIR writes what each door received there, to read what a client is given.
  if (process.env.MASKING_TEST_DUMP) writeFileSync(join(process.env.MASKING_TEST_DUMP, `${door}-${c.steps.map((s) => s.action_name).join('+')}.txt`.replace(/ /g, '_')), all);
  for (const s of c.secrets) {
    assert.ok(!all.includes(s.value), `${door}: the planted ${s.name} (${s.value.slice(0, 6)}…, ${s.value.length} characters) reached the client`);
    for (let i = 0; i + 16 <= s.value.length; i++) {
      const piece = s.value.slice(i, i + 16);
      assert.ok(!all.includes(piece), `${door}: a 16-character piece of the planted ${s.name} (${piece}) reached the client`);
    }
  }
  // Every place the value stood (each occurrence of what precedes it) now holds the mask.
  for (const s of c.secrets) {
    const places = all.match(new RegExp(s.before, 'g'))?.length ?? 0;
    const masked = all.match(new RegExp(`${s.before}${s.gap ?? '\\\\?["\']?'}${MASK}`, 'g'))?.length ?? 0;
    assert.ok(places > 0, `${door}: the output no longer shows where ${s.name} stood (${s.before})`);
    assert.equal(masked, places, `${door}: ${places - masked} of the ${places} places where ${s.name} stood hold no ⟦secret:KIND⟧`);
  }
  for (const k of c.kept) assert.ok(all.includes(k), `${door}: "${k}" is no secret and must still come through (masking must not blank the output)`);
}

/** The CLI door: preview, a person's approval, execute with the receipt the daemon hands the requester, show and history. */
async function throughCli(c: Case): Promise<void> {
  const received: string[] = [];
  const decoded: string[] = [];
  const cli = async (args: string[], want = 0) => {
    const r = await cliAs(agent.identity, args);
    received.push(r.stdout, r.stderr);
    decoded.push(...strings(parsed(r.stdout)));
    assert.equal(r.code, want, `airlock ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    return r;
  };
  for (const step of c.steps) {
    const p = JSON.parse((await cli(['preview', step.action_name, '--params', JSON.stringify(step.params), '--json'])).stdout) as PreviewEnvelope;
    await approveAsPerson(p.transaction_id);
    const r = JSON.parse((await cli(['execute', p.transaction_id, '--wait', '60', '--json'])).stdout) as { state: string; output: string[] };
    assert.equal(r.state, 'Succeeded', `${step.action_name} ran: ${JSON.stringify(r)}`);
    await cli(['show', p.transaction_id, '--json']);
    await cli(['show', p.transaction_id]);
    await cli(['history', '--action', step.action_name, '--json']);
  }
  assertMasked('the CLI', received.join('\n'), decoded, c);
}

/** The MCP door: airlock_propose, a person's approval, airlock_execute (and its progress), airlock_status, airlock_history. */
async function throughMcp(c: Case): Promise<void> {
  const received: string[] = [];
  const decoded: string[] = [];
  const call = async (name: string, args: Record<string, unknown>) => {
    const progress: string[] = [];
    const r = (await mcp.client.callTool({ name, arguments: args }, { onprogress: (p) => progress.push(p.message ?? ''), resetTimeoutOnProgress: true, timeout: 120_000 })) as CallToolResult;
    const texts = (r.content as Array<{ text?: string }>).map((x) => x.text ?? '');
    received.push(JSON.stringify(r), ...texts, ...progress);
    decoded.push(...texts, ...progress, ...strings(r.structuredContent), ...texts.flatMap((t) => strings(parsed(t))));
    assert.notEqual(r.isError, true, `${name}: ${texts.join('\n')}`);
    return r.structuredContent as any;
  };
  const proposed = await call('airlock_propose', { steps: c.steps });
  const ids = (proposed.steps as Array<{ ok: boolean; transaction_id: string }>).map((s) => (assert.ok(s.ok, JSON.stringify(s)), s.transaction_id));
  for (const id of ids) await approveAsPerson(id);
  const ran = await call('airlock_execute', { steps: ids.map((transaction_id) => ({ transaction_id })), wait_for_approval: 60 });
  assert.deepEqual(ran.steps.map((s: { state: string }) => s.state), ids.map(() => 'Succeeded'), JSON.stringify(ran));
  for (const id of ids) await call('airlock_status', { transaction_id: id });
  await call('airlock_history', { limit: 20 });
  assertMasked('the MCP client', received.join('\n'), decoded, c);
}

/** Each case: planted once, then read through both doors. */
function attack(title: string, plant: () => Promise<Case>, opts: { todo?: string } = {}): void {
  describe(title, () => {
    let c: Case | null = null;
    const planted = async () => (c ??= await plant());
    test('the CLI never receives a planted value', opts, async () => throughCli(await planted()));
    test('the MCP client never receives a planted value', opts, async () => throughMcp(await planted()));
  });
}

const globToRegExp = (g: string) => new RegExp(`^${g.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);

attack(
  'a netplan file with a wifi password',
  async () => {
    const path = '/etc/netplan/60-wifi.yaml';
    const ssid = `airlock-lab-${random(6)}`;
    const password = random(20);
    await must('/usr/bin/mkdir', ['-p', '--', '/etc/netplan']);
    await view.writeFile!(path, `network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n      access-points:\n        "${ssid}":\n          password: "${password}"\n`);
    assert.ok((await view.readFile(path))!.includes(password), 'the bed holds the planted password');
    // The files family shows a world-readable netplan file (src/catalogue/families/files/allowlist.ts).
    const read = CATALOGUE.get('ReadConfigFile')!;
    assert.ok(read.files.some((g) => globToRegExp(g).test(path)), `ReadConfigFile does not declare ${path}`);
    return { steps: [{ action_name: read.name, params: { path } }], secrets: [secret('the wifi password', password, 'password: ')], kept: [ssid, 'access-points'] };
  },
);

attack('a unit drop-in with tokens in Environment=', async () => {
  const unit = 'airlock-mask-demo.service';
  const description = `Airlock masking demo ${random(6)}`;
  const apiToken = random(32);
  const ghp = `ghp_${random(36)}`;
  await view.writeFile!(`/etc/systemd/system/${unit}`, `[Unit]\nDescription=${description}\n\n[Service]\nType=simple\nExecStart=/usr/bin/sleep infinity\n`);
  await must('/usr/bin/mkdir', ['-p', '--', `/etc/systemd/system/${unit}.d`]);
  await view.writeFile!(`/etc/systemd/system/${unit}.d/override.conf`, `[Service]\nEnvironment="API_TOKEN=${apiToken}"\nEnvironment=GITHUB_TOKEN=${ghp}\nRestart=on-failure\n`);
  await must('/usr/bin/systemctl', ['daemon-reload']);
  assert.match(await must('/usr/bin/systemctl', ['show', '-p', 'Environment', '--value', '--', unit]), new RegExp(`API_TOKEN=${apiToken} GITHUB_TOKEN=${ghp}`), 'systemd loaded the planted tokens');
  return {
    // ShowUnitFile prints the unit file and its drop-ins (systemctl cat); ShowServiceOverrides the drop-ins with their names.
    steps: [
      { action_name: 'ShowUnitFile', params: { unit } },
      { action_name: 'ShowServiceOverrides', params: { unit } },
    ],
    secrets: [secret('API_TOKEN', apiToken, 'API_TOKEN='), secret('ghp_ token', ghp, 'GITHUB_TOKEN=')],
    kept: [description, 'ExecStart=/usr/bin/sleep infinity', 'Restart=on-failure', `/etc/systemd/system/${unit}.d/override.conf`],
  };
});

attack('a journal line that logs a bearer token', async () => {
  const token = random(43, `${BASE62}-_`);
  const delivery = random(12);
  // journalctl --since in UTC, a second before the line, so the read starts at it.
  const since = new Date(Date.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  await must('/usr/bin/logger', ['-t', 'airlock-webhook', '--', `POST /hooks/deploy delivery=${delivery} Authorization: Bearer ${token} accepted`]);
  let logged = '';
  for (let i = 0; i < 50 && !logged.includes(token); i++) {
    logged = await must('/usr/bin/journalctl', ['--no-pager', '-t', 'airlock-webhook']);
    if (!logged.includes(token)) await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(logged.includes(token), 'the journal holds the planted line');
  return {
    steps: [{ action_name: 'JournalQuery', params: { since, lines: 50 } }],
    // The masker may take the header's name with the value: the mask then follows the words before it.
    secrets: [{ name: 'bearer token', value: token, before: literal(`delivery=${delivery} `), gap: '(?:Authorization: )?(?:Bearer )?' }],
    kept: ['airlock-webhook', 'POST /hooks/deploy', `delivery=${delivery}`, 'accepted'],
  };
});

attack('a podman container with secrets in Env', async () => {
  const name = 'airlock-mask-demo';
  const dbPassword = random(24);
  const keyId = `AKIA${random(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`;
  const secretKey = random(40, `${BASE62}/+`);
  const image = await makeImage(view);
  await must('/usr/bin/podman', ['create', '--name', name, '--init', '--network', 'none', '--cgroups', 'disabled', '--env', `DB_PASSWORD=${dbPassword}`, '--env', `AWS_ACCESS_KEY_ID=${keyId}`, '--env', `AWS_SECRET_ACCESS_KEY=${secretKey}`, '--env', 'APP_MODE=production', image]);
  assert.ok((await must('/usr/bin/podman', ['container', 'inspect', '--format', '{{.Config.Env}}', '--', name])).includes(secretKey), 'the container holds the planted environment');
  return {
    steps: [{ action_name: 'InspectContainer', params: { container: name } }],
    secrets: [secret('DB_PASSWORD', dbPassword, 'DB_PASSWORD='), secret('AWS_ACCESS_KEY_ID', keyId, 'AWS_ACCESS_KEY_ID='), secret('AWS_SECRET_ACCESS_KEY', secretKey, 'AWS_SECRET_ACCESS_KEY=')],
    kept: [name, `${image}:latest`, 'APP_MODE=production'],
  };
});
