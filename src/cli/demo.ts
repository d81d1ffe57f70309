/**
 * `airlock demo`: a newcomer's first five minutes. A real daemon on a throwaway
 * overlay of this host; an agent and a human as two real Unix users; a read, a
 * user created, a key added, a self-approval and a replay refused; then history
 * and an offline audit verification. Nothing on the real host changes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stateFiles } from '../protocol/defaults.js';
import { AirlockError } from '../protocol/errors.js';
import { isRecorded, type ApprovalGrant } from '../protocol/messages.js';
import { canSandbox } from '../sandbox/overlay.js';
import { CATALOGUE } from '../catalogue/index.js';
import { Authenticator } from '../sandbox/authenticator.js';
import { startSandboxDaemon } from '../sandbox/daemon.js';
import { AIRLOCK_GROUPS, APPROVER_GROUP, ROLE_GROUPS } from '../protocol/risk.js';
import { Principal } from '../sandbox/principal.js';
import { readSqliteLog } from '../audit/log-file.js';
import { parsePublicKey } from '../audit/keys.js';
import { verifyLog } from '../audit/verify.js';
import { renderHistory, renderResult } from './render.js';
import { renderPreview } from '../client/render-preview.js';
import { c } from './ui.js';

const DEMO_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d demo@airlock';

/** `airlock demo [--fast]` (registered in main.ts): the exit code of the whole story. */
export async function runDemo(o: { fast?: boolean }): Promise<number> {
  try {
    return await demo(Boolean(o.fast));
  } catch (e) {
    process.stderr.write(`${c.red('demo failed:')} ${e instanceof AirlockError ? e.message : (e as Error).stack}\n`);
    return 1;
  }
}

const say = (s = '') => process.stdout.write(s + '\n');
const step = (n: number, s: string) => say(`\n${c.bold(c.magenta(`▶ ${n}.`))} ${c.bold(s)}`);
const who = (name: string, s: string) => say(`${c.cyan(name.padStart(6))} ${s}`);

function rmKept(dir: string): void {
  try {
    execFileSync('/usr/bin/chattr', ['-R', '-a', '--', dir], { stdio: 'ignore' });
  } catch {}
  rmSync(dir, { recursive: true, force: true });
}

async function demo(fast: boolean): Promise<number> {
  const why = canSandbox();
  say(c.bold('Airlock demo') + c.dim(' — an AI agent administers a host without a shell'));
  if (why) {
    say(`\nThe demo starts a real daemon inside a private overlay of / so nothing on this host changes;\n${why}.`);
    say(`Run it as root:  ${c.bold('sudo npm run demo')}   (or  sudo airlock demo)`);
    say(`\nWithout root, here is the whole vocabulary the agent would get: no shell, only these typed actions.`);
    const byFamily = new Map<string, string[]>();
    for (const a of CATALOGUE.values()) byFamily.set(a.family, [...(byFamily.get(a.family) ?? []), `${a.name} ${c.dim(a.risk)}`]);
    for (const [family, names] of byFamily) say(`  ${c.bold(family.padEnd(9))} ${names.join(', ')}`);
    say(`\n${CATALOGUE.size} actions. Low risk needs the Observer role, medium Dev, high Admin; every one needs a human's approval.`);
    return 2;
  }
  const pause = () => new Promise((r) => setTimeout(r, fast ? 0 : 400));
  const t0 = Date.now();
  say(c.dim('Starting a throwaway daemon: overlay of /, private mount/UTS/IPC namespaces, fresh SQLite store and Ed25519 keys...'));
  const d = await startSandboxDaemon();
  const principals: Principal[] = [];
  try {
    for (const g of AIRLOCK_GROUPS) await d.box.run('/usr/sbin/groupadd', ['--', g]);
    // The worst case: the agent holds every right the human has, approver included.
    const agentIds = await d.addUser('agent', [ROLE_GROUPS.admin, APPROVER_GROUP]);
    const humanIds = await d.addUser('alice', [ROLE_GROUPS.admin, APPROVER_GROUP]);
    const agent = Principal.spawn(agentIds, d.socket);
    const alice = Principal.spawn(humanIds, d.socket);
    principals.push(agent, alice);
    // alice, the host's first approver, enrols her authenticator app through sudo in her own
    // login session and confirms it with a first code (in real life: `sudo airlock totp enroll`
    // at the installing terminal, and a QR code). From her account alone (where the agent could
    // sit) the daemon enrols no first factor.
    const phone = new Authenticator();
    const aliceSudo = Principal.spawnRootInSessionOf(humanIds.uid, d.socket);
    principals.push(aliceSudo);
    const enrolled = await aliceSudo.call('totp.enroll', {});
    phone.add('alice', enrolled.secret);
    await aliceSudo.call('totp.confirm', { code: await phone.code('alice') });
    say(c.dim(`daemon up on ${d.socket}`));
    say(c.dim(`principals: ${c.bold('agent')} (uid ${agentIds.uid}, ${ROLE_GROUPS.admin} + ${APPROVER_GROUP}: as powerful as the human) and ${c.bold('alice')} (uid ${humanIds.uid}, ${ROLE_GROUPS.admin} + ${APPROVER_GROUP}).`));
    say(c.dim('The daemon learns which is which from the kernel (SO_PEERCRED), never from what they send.'));

    const flow = async (action: string, params: Record<string, unknown>, opts: { tryToSelfApprove?: boolean } = {}) => {
      who('agent', `previews ${c.bold(action)} ${c.dim(JSON.stringify(params))}`);
      const p = await agent.call('preview', { action_name: action, params });
      say(renderPreview(p).replace(/^/gm, '         '));
      await pause();
      if (opts.tryToSelfApprove) {
        who('agent', 'tries to approve its own request...');
        try {
          await agent.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest });
          throw new Error('self-approval was accepted: this must never happen');
        } catch (e) {
          if (!(e instanceof AirlockError)) throw e;
          who('daemon', `${c.red('refused')} ${c.dim(`[${e.category}/${e.code}]`)} ${e.message}`);
        }
      }
      let g: ApprovalGrant;
      if (p.auto_approval) {
        g = p.auto_approval;
        who('daemon', `${c.green('approves')} by its policy (rule ${c.bold(p.auto_approval.rule)}: non-sensitive reads need no person); a receipt like any other, logged with the rule and the policy digest`);
      } else {
        const code = p.risk === 'high' ? await phone.code('alice') : undefined;
        const r = await alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, ...(code ? { totp_code: code } : {}) });
        // The demo's throwaway host has the default policy: one person approves, so this is the receipt.
        if (isRecorded(r)) throw new AirlockError('integrity', 'unexpected_recorded', 'the demo expects one approver to suffice ([approval] high = 1)');
        g = r;
        who('alice', `${c.green('approves')} (she saw digest ${p.preview_digest.slice(0, 12)}…${code ? `; high risk, so she also types ${code} from her authenticator app` : ''}); receipt bound to this preview, for the agent only, until ${g.expires_at}`);
      }
      const r = await agent.call('execute', { transaction_id: p.transaction_id, action_name: action, params: p.params, receipt: g.receipt });
      who('agent', 'executes with the receipt:');
      const shown = { ...r, output: r.output.slice(0, 6), output_truncated: r.output_truncated || r.output.length > 6 };
      say(renderResult(shown).replace(/^/gm, '         '));
      await pause();
      return { p, g, r };
    };

    step(1, 'A read: even looking goes through the one door (preview → approval → execute → signed log); the default policy approves non-sensitive reads itself');
    await flow('HostInfo', {});

    step(2, 'A change: create a user. The agent cannot approve it for itself, even as an approver');
    await flow('CreateUser', { user: 'deploy', comment: 'Deploy bot', shell: '/bin/bash' }, { tryToSelfApprove: true });
    const passwd = (await d.box.readFile('/etc/passwd')) ?? '';
    who('check', `/etc/passwd in the throwaway host now has: ${c.bold(passwd.split('\n').find((l) => l.startsWith('deploy:')) ?? 'NOTHING (unexpected)')}`);

    step(3, "Access: add an SSH key to deploy's authorized_keys (high risk)");
    const { p, g } = await flow('AddAuthorizedKey', { user: 'deploy', key: DEMO_KEY });
    const keys = (await d.box.readFile('/home/deploy/.ssh/authorized_keys')) ?? '';
    who('check', `/home/deploy/.ssh/authorized_keys: ${c.bold(keys.trim() ? `${keys.trim().split('\n').length} key(s), ending "${keys.trim().slice(-20)}"` : 'EMPTY (unexpected)')}`);

    step(4, 'A replayed receipt is refused');
    try {
      await agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt });
      throw new Error('a replayed receipt was accepted: this must never happen');
    } catch (e) {
      if (!(e instanceof AirlockError)) throw e;
      who('daemon', `${c.red('refused')} ${c.dim(`[${e.category}/${e.code}]`)} ${e.message}`);
    }

    step(5, 'History');
    say(renderHistory(await alice.call('history', { limit: 10 })).replace(/^/gm, '  '));

    step(6, 'An auditor checks the log offline: public key only, no daemon');
    const kept = mkdtempSync(join(tmpdir(), 'airlock-demo-'));
    await d.stop({ keepSharedAs: join(kept, 'shared') }); // the daemon flushes its last checkpoint as it stops
    const files = stateFiles(join(kept, 'shared', 'state'), join(kept, 'shared', 'log'));
    const report = await verifyLog(readSqliteLog(files.db), parsePublicKey(readFileSync(files.publicKey, 'utf8')), readFileSync(files.checkpoints, 'utf8'));
    rmKept(kept);
    say(`  ${c.dim('$ airlock audit verify --pubkey audit.pub --db airlock.db --checkpoints checkpoints.log')}`);
    say(`  ${report.status === 'intact' ? c.green('intact') : report.status === 'broken' ? c.red('BROKEN') : c.yellow('CANNOT VERIFY')}  ${report.entries} signed entries, consistent with the latest checkpoint (size ${report.checkpoint?.size ?? 0})`);
    say(`\n${c.bold('Done')} in ${((Date.now() - t0) / 1000).toFixed(1)} s. The throwaway host is gone; this machine did not change.`);
    say(c.dim('Next: README.md (install for real), docs/security.md (what this does and does not protect), `airlock --help`.'));
    return report.status === 'intact' ? 0 : 1;
  } finally {
    principals.forEach((x) => x.close());
    await d.stop();
  }
}
