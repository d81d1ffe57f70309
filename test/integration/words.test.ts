/**
 * The words people read, against a real daemon with real Unix users: a refused request's
 * parameters come back as sentences (naming the parameter, what it got masked, what it
 * accepts; never a regex), an unknown action suggests the nearest names through the daemon
 * and the command line, the daemon's journal lines are sentences with agent text escaped,
 * and the CLI shows why the policy did not approve a preview after the preview.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { airlockAs } from '../support/cli.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { AirlockError } from '../../src/protocol/errors.js';
import type { UnixIdentity } from '../../src/sandbox/principal.js';

const POLICY = `[[rule]]
id = "web-groups"
action = "CreateGroup"
params = { group = "web-*" }
cooldown_minutes = 60
daily_cap = 5
`;
let w: World;
let agent: Principal, alice: Principal;
before(async () => {
  w = await startWorld([], 'overlay', { policy: POLICY });
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
});
after(() => w?.close());

/** `airlock --socket S ARGS` as `who`, with no terminal. */
const cliAs = (who: UnixIdentity, args: string[]) => airlockAs(who, w.d.socket, args);
const preview = (who: Principal, action: string, params: Record<string, unknown>) => who.call('preview', { action_name: action, params });
/** The daemon's journal lines (stderr) that mention `text`, after it has had a moment to write them. */
async function journalLines(text: string): Promise<string[]> {
  await new Promise((r) => setTimeout(r, 100));
  return w.d.logs.filter((l) => l.includes(text));
}

describe('validation errors', () => {
  test('each refused parameter is a sentence: what it got, what it accepts; unknown ones suggest the name', async () => {
    const e = await rejectsWith(preview(agent, 'CreateUser', { usr: 'bob' }), 'validation', 'bad_params');
    assert.equal(e.message, 'invalid parameters for CreateUser: missing parameter `user`: a user name (a lower-case letter or _, then lower-case letters, digits, _ and -, up to 32 characters, e.g. alice); unknown parameter `usr` (did you mean `user`?)');
    const unit = await rejectsWith(preview(agent, 'RestartService', { unit: 'ngi nx' }), 'validation', 'bad_params');
    assert.match(unit.message, /^invalid parameters for RestartService: parameter `unit` got "ngi nx": a systemd unit name \(letters, digits/);
    assert.doesNotMatch(unit.message, /\^|\\d|\[A-Z|Invalid input|expected string/);
  });

  test('a secret-looking value is masked in the sentence, and the CLI prints it with what to do next', async () => {
    const token = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
    const e = await rejectsWith(preview(agent, 'RestartService', { unit: `token=${token}` }), 'validation', 'bad_params');
    assert.ok(!e.message.includes(token), e.message);
    const r = await cliAs(agent.identity, ['preview', 'RestartService', '-p', 'unit=ngi nx']);
    assert.equal(r.code, 5);
    assert.match(r.stderr, /error \[validation\/bad_params\] invalid parameters for RestartService: parameter `unit` got "ngi nx": a systemd unit name/);
    assert.match(r.stderr, /next {2}see `airlock describe RestartService`/);
  });
});

describe('a value of the wrong type', () => {
  test('says so through the daemon, lists it on the error, and the CLI says how to send it typed', async () => {
    const e = (await rejectsWith(preview(agent, 'ScanSshHostKeys', { host: '192.0.2.10', port: '443' }), 'validation', 'bad_params')) as AirlockError;
    assert.match(e.message, /^invalid parameters for ScanSshHostKeys: parameter `port` got the string "443": a whole number from 1 to 65535/);
    assert.equal(e.hint, 'send `port` as a number (443), not as text; see `airlock describe ScanSshHostKeys`');
    assert.deepEqual(e.wrongTypes, [{ param: 'port', expected: ['number'], got: 'string', as_json: '443' }]);
    // The right type the other way round: no JSON to suggest, the type alone.
    const user = (await rejectsWith(preview(agent, 'CreateUser', { user: 5 }), 'validation', 'bad_params')) as AirlockError;
    assert.match(user.message, /parameter `user` got the number 5: a user name/);
    assert.deepEqual(user.wrongTypes, [{ param: 'user', expected: ['string'], got: 'number' }]);
    // `-p port=443` sends text; the command line says how to send the number.
    const r = await cliAs(agent.identity, ['preview', 'ScanSshHostKeys', '-p', 'host=192.0.2.10', '-p', 'port=443']);
    assert.equal(r.code, 5);
    assert.match(r.stderr, /parameter `port` got the string "443"/);
    assert.match(r.stderr, /next {2}on the command line: --param port:=443 /);
    // Sent typed, the same request is accepted.
    const ok = await cliAs(agent.identity, ['preview', 'ScanSshHostKeys', '-p', 'host=192.0.2.10', '-p', 'port:=443', '--json']);
    assert.equal(ok.code, 0, ok.stderr);
  });
});

describe('unknown actions', () => {
  test('the daemon suggests the nearest names, and preview and describe print them', async () => {
    const e = await rejectsWith(preview(agent, 'installpackage', {}), 'validation', 'unknown_action');
    assert.equal(e.message, 'there is no action named "installpackage" (did you mean InstallPackage?)');
    const r = await cliAs(agent.identity, ['preview', 'RestartServce', '-p', 'unit=nginx.service']);
    assert.equal(r.code, 5);
    assert.match(r.stderr, /there is no action named "RestartServce" \(did you mean RestartService\?\)/);
    const d = await cliAs(agent.identity, ['describe', 'restartservice']);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^RestartService \(services\)/);
    const list = await cliAs(agent.identity, ['actions', '--family', 'identity']);
    assert.match(list.stdout, /^identity {2}host name, time zone/m);
  });
});

describe('journal lines', () => {
  test('a change reads as sentences from preview to outcome, with no JSON', async () => {
    const { p } = await w.lifecycle(agent, alice, 'CreateGroup', { group: 'jl-ops' });
    const lines = await journalLines(p.transaction_id);
    const sentences = lines.map((l) => l.replace(/^airlock-daemon: /, ''));
    assert.deepEqual(sentences.map((l) => l.replace(/\(uid \d+\)/g, '')), [
      `agent previewed CreateGroup ${p.transaction_id} (medium): ${p.summary}`,
      `alice approved CreateGroup ${p.transaction_id} requested by agent`,
      `agent presented the approval of CreateGroup ${p.transaction_id}`,
      `agent started CreateGroup ${p.transaction_id} (${1} step(s))`,
      sentences[4]!.replace(/\(uid \d+\)/g, ''),
    ]);
    assert.match(sentences[4]!, new RegExp(`^${p.transaction_id} CreateGroup Succeeded in \\d+(\\.\\d)? s$`));
    for (const l of lines) assert.doesNotMatch(l, /[{}]/);
  });

  test('agent text in a journal line is escaped: a reason cannot forge a line', async () => {
    const p = await preview(agent, 'CreateGroup', { group: 'jl-deny' });
    await alice.call('deny', { transaction_id: p.transaction_id, reason: 'no\nairlock-daemon: alice approved everything\u001b[2J\u202e' });
    const [line] = (await journalLines(p.transaction_id)).filter((l) => l.includes('denied'));
    assert.ok(line, w.d.logs.slice(-5).join('\n'));
    assert.match(line!, /denied CreateGroup tx_[0-9a-f]{24}: no\\x0aairlock-daemon: alice approved everything\\x1b\[2J\\u202e$/);
    assert.equal(w.d.logs.filter((l) => l.startsWith('airlock-daemon: alice approved everything')).length, 0);
  });
});

describe('policy notes', () => {
  test('the CLI shows, after the preview, which rule did not approve it and why', async () => {
    const r = await cliAs(agent.identity, ['preview', 'CreateGroup', '-p', 'group=db-9']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\nnote {2}policy: rule `web-groups` does not approve this: parameter `group` is "db-9", outside "web-\*"\n/);
    const json = JSON.parse((await cliAs(agent.identity, ['preview', 'CreateGroup', '-p', 'group=db-10', '--json'])).stdout) as { policy_notes: string[] };
    assert.deepEqual(json.policy_notes, ['policy: rule `web-groups` does not approve this: parameter `group` is "db-10", outside "web-*"']);
  });
});
