/**
 * Token transport against a real daemon: a TCP listener on loopback and the token
 * socket a vsock bridge forwards to. The token from the root-owned file names the
 * principal (never the kernel's peer credentials on these listeners); missing, wrong
 * and malformed tokens are refused; token principals never approve; an unattended
 * token only proposes; tokens never reach the log.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { AirlockClient } from '../../src/client/client.js';
import { newToken, tokenHash } from '../../src/protocol/token.js';
import { readSqliteLog } from '../../src/audit/log-file.js';

const PORT = 30_000 + Math.floor(Math.random() * 20_000);
const ci = newToken();
const cron = newToken();
const entry = (name: string, role: string, unattended: boolean, token: string) => `[[token]]\nname = "${name}"\nrole = "${role}"\nunattended = ${unattended}\nsha256 = "${tokenHash(token).toString('hex')}"\n`;
const TOKENS = entry('ci', 'dev', false, ci) + entry('nightly', 'dev', true, cron);

let w: World;
let alice: Principal;
let tokenSocket: string;
const clients: AirlockClient[] = [];
const viaTcp = async (token?: string) => {
  const cl = await AirlockClient.connect(`tcp:127.0.0.1:${PORT}`, { ...(token !== undefined ? { token } : { token: '' }) });
  clients.push(cl);
  return cl;
};

before(async () => {
  w = await startWorld(['--listen-tcp', `127.0.0.1:${PORT}`, '--token-socket', '/run/airlock-token.sock'], 'overlay', { tokens: TOKENS, policy: 'reads = "ask"\n' });
  tokenSocket = `/proc/${w.d.box.pid}/root/run/airlock-token.sock`;
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
});
after(async () => {
  clients.forEach((c) => c.close());
  await w?.close();
});

describe('TCP with tokens', () => {
  test('no token, a wrong one and a malformed one are refused before anything else', async () => {
    await rejectsWith(viaTcp(), 'authorization', 'bad_token');
    await rejectsWith(viaTcp(newToken()), 'authorization', 'bad_token');
    await rejectsWith(viaTcp(ci.slice(0, 42)), 'authorization', 'bad_token');
    await rejectsWith(viaTcp(`${ci}\n`), 'authorization', 'bad_token');
  });

  test("a token's principal is its name and role from the file, and it works the whole flow with a person's approval", async () => {
    const cl = await viaTcp(ci);
    assert.deepEqual([cl.welcome.principal.user, cl.welcome.principal.via, cl.welcome.principal.role, cl.welcome.principal.approver], ['token:ci', 'token', 'dev', false]);
    const p = await cl.preview('CreateGroup', { group: 'from-ci' });
    assert.equal(p.requested_by, 'token:ci');
    await rejectsWith(cl.preview('CreateUser', { user: 'x1' }), 'authorization', 'role_too_low');
    const g = await w.approve(alice, p);
    assert.equal(g.executor, 'token:ci');
    const r = await cl.execute(p.transaction_id, p.action_name, p.params, g.receipt);
    assert.equal(r.state, 'Succeeded');
    assert.match((await w.d.box.readFile('/etc/group'))!, /^from-ci:/m);
    const logged = [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as { kind: string; transaction_id: string; principal: { user: string } | null });
    assert.equal(logged.find((e) => e.kind === 'preview' && e.transaction_id === p.transaction_id)?.principal?.user, 'token:ci');
  });

  test('a token principal never approves, not even what another requested', async () => {
    const other = await w.as('agent', ['airlock-dev']);
    const p = await other.call('preview', { action_name: 'CreateGroup', params: { group: 'g-other' } });
    const cl = await viaTcp(ci);
    await rejectsWith(cl.approve(p.transaction_id, p.preview_digest), 'authorization', 'token_not_a_person');
    // And a person cannot execute what the token requested, nor the token what a person requested.
    await rejectsWith(cl.execute(p.transaction_id, p.action_name, p.params, 'alr1.x'), 'authorization', 'not_the_requester');
  });

  test('an unattended token proposes into the inbox and nobody can approve it', async () => {
    const cl = await viaTcp(cron);
    const p = await cl.preview('CreateGroup', { group: 'from-cron' });
    assert.equal(p.unattended, true);
    await rejectsWith(w.approve(alice, p), 'authorization', 'unattended_proposal');
    assert.ok((await alice.call('inbox')).some((t) => t.transaction_id === p.transaction_id));
  });

  test('tokens never reach the log, the database or the daemon output', async () => {
    const db = readFileSync(w.d.files.db);
    for (const t of [ci, cron]) {
      assert.equal(db.includes(Buffer.from(t)), false);
      assert.ok(!w.d.logs.join('\n').includes(t));
    }
  });
});

describe('the token socket (what a vsock bridge forwards to)', () => {
  test('the token decides, not the peer: root with a dev token is dev, root without one is refused', async () => {
    // The test runs as root: on the ordinary socket it would be admin and approver.
    const cl = await AirlockClient.connect(tokenSocket, { token: ci });
    clients.push(cl);
    assert.deepEqual([cl.welcome.principal.user, cl.welcome.principal.role, cl.welcome.principal.approver], ['token:ci', 'dev', false]);
    await rejectsWith(AirlockClient.connect(tokenSocket, { token: '' }), 'authorization', 'bad_token');
    cl.close();
  });

  test('a token file others can read is refused at reload and the old tokens stay', async () => {
    const file = join(w.d.box.shared, 'tokens.toml');
    chmodSync(file, 0o644);
    await rejectsWith(w.reload(), 'integrity', 'tokens_untrusted');
    chmodSync(file, 0o600);
    writeFileSync(file, entry('ci', 'dev', false, ci));
    await w.reload();
    await rejectsWith(viaTcp(cron), 'authorization', 'bad_token'); // removed from the file
    const cl = await viaTcp(ci);
    assert.equal(cl.welcome.principal.user, 'token:ci');
  });
});
