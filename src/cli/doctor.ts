/**
 * `airlock doctor`: what goes wrong in practice, one check each, and the fix beside a
 * failing check only. What the daemon knows (who it sees, who has a second factor, the log)
 * comes from the daemon over the socket: the second factors from the signed log it streams
 * (totp_enrolled / totp_reset entries, src/client/approvers.ts), verified here with the public
 * key, never from the store. What the host says (groups, file modes) is read here.
 */
import { existsSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Principal, StorageSpace, StoreCheck } from '../protocol/messages.js';
import { escapeText } from '../protocol/escape-text.js';
import { DEFAULT_POLICY_PATH, DEFAULT_SOCKET, stateFiles } from '../protocol/defaults.js';
import { AirlockError } from '../protocol/errors.js';
import { AIRLOCK_GROUPS, APPROVER_GROUP, ROLE_GROUPS } from '../protocol/risk.js';
import { policyFileProblem } from '../policy/file-trust.js';
import { DEFAULT_POLICY, parsePolicy } from '../policy/policy.js';
import { approversFrom, enrolledFromLog, passkeysFromLog } from '../client/approvers.js';
import type { PolicyView } from '../protocol/wire/policy.js';
import { verifyAndKeep, type AuditReport } from '../client/daemon-audit.js';
import { CHECKOUT, groupExists, PACKAGED, run } from './installation.js';
import { checkDaemonCode, describeUntrusted, untrustedFix } from './daemon-code.js';
import { accountNamed, cacheRisk, DROP_IN_PATH, personBehindRoot, readSudoers, sudoCache } from './sudo-cache.js';
import { agentEntries } from './setup/agent-entries.js';
import type { Check } from './setup/checks.js';
import { staleGroups, staleGroupsAdvice } from '../client/stale-groups.js';
import { c, printJson } from './ui.js';

const MIN_NODE = 20;
const fail = (name: string, detail: string, fix: string): Check => ({ name, ok: false, detail, fix });
const pass = (name: string, detail: string): Check => ({ name, ok: true, detail });
const readText = (p: string) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
};

interface Reached {
  principal: Principal;
  audit: AuditReport;
  enrolled: Set<string> | null;
  /** How many passkeys each approver registered (from the log), null when the log was not read. */
  passkeys: Map<string, number> | null;
  /** The policy's [passkeys], as policy.show gives it. */
  passkeyPolicy: PolicyView['passkeys'] | null;
  /** The store's own check, when the daemon lets this account ask (approvers and admins). */
  store: StoreCheck | null;
}

async function askDaemon(sock: string, files: ReturnType<typeof stateFiles>): Promise<Reached> {
  const { AirlockClient } = await import('../client/client.js');
  const cl = await AirlockClient.connect(sock, { timeoutMs: 5000, client: 'airlock-doctor/0.1' });
  try {
    const { report, rows } = await verifyAndKeep(cl, { publicKeyPath: files.publicKey, checkpointsPath: null });
    const p = cl.welcome.principal;
    const store = p.approver || p.role === 'admin' ? await cl.call('store.check') : null;
    const policy = await cl.call('policy.show');
    return { principal: p, audit: report, enrolled: rows ? enrolledFromLog(rows) : null, passkeys: rows ? passkeysFromLog(rows) : null, passkeyPolicy: policy.passkeys ?? null, store };
  } finally {
    cl.close();
  }
}

function daemonCheck(sock: string, r: Reached | AirlockError): Check {
  if (r instanceof AirlockError) {
    const where = sock === DEFAULT_SOCKET ? '' : ` (socket ${sock})`;
    if (r.category === 'authorization') return fail('daemon', `it refuses this account: ${r.message}${where}`, r.hint ?? 'see docs/cli.md');
    return fail('daemon', `not reachable: ${r.message}${where}`, 'sudo systemctl start airlock (the first time: sudo airlock install); `journalctl -u airlock` says why it stopped');
  }
  const p = r.principal;
  const root = p.uid === 0 ? (p.person ? `; approvals count as ${p.person}` : '; nobody stands behind this root process, so it approves nothing') : '';
  return pass('daemon', `reachable at ${sock}; you are ${p.user} (uid ${p.uid}), role ${p.role}${p.approver ? ', approver' : ''}${root}`);
}

function sessionCheck(): Check {
  const stale = staleGroups();
  return stale ? fail('session groups', `this session lacks ${stale.groups.join(', ')}, which /etc/group gives ${stale.user}`, staleGroupsAdvice(stale)) : pass('session groups', 'this session has every Airlock group /etc/group gives it');
}

function approverChecks(r: Reached | AirlockError): Check[] {
  const members = approversFrom(readText('/etc/group') ?? '', readText('/etc/passwd') ?? '');
  if (members === null) return [fail('approvers', `there is no ${APPROVER_GROUP} group`, 'sudo airlock install')];
  if (members.length === 0) return [fail('approvers', `nobody is in ${APPROVER_GROUP}, so only the policy approves anything and no High change can run`, `sudo usermod -aG ${APPROVER_GROUP},${ROLE_GROUPS.admin} PERSON (a person, not the agent's account), then they log in again`)];
  const checks = [pass('approvers', members.join(', '))];
  if (r instanceof AirlockError || r.enrolled === null) return checks; // who has a factor is the daemon's to say
  const without = members.filter((m) => !r.enrolled!.has(m) && !r.passkeys?.get(m));
  checks.push(
    without.length
      ? fail(
          'second factors',
          `${without.join(', ')} ${without.length === 1 ? 'has' : 'have'} no second factor: they approve nothing High, nor any request made under their own account`,
          without.length === members.length
            ? "the host's first approver runs `sudo airlock totp enroll` from their own login session; each other approver then runs `airlock totp enroll` as themselves, and the first approves them with `airlock totp approve --user NAME`"
            : 'each of them runs `airlock totp enroll` as themselves, at their own terminal; an approver with a factor then runs `airlock totp approve --user NAME`',
        )
      : pass('second factors', `every approver has one: ${members.map((m) => `${m} (${factorsOf(r, m)})`).join(', ')}`),
  );
  const required = r.passkeyPolicy && (r.passkeyPolicy.required_from !== null || r.passkeyPolicy.own_requests);
  if (required && r.passkeys) {
    const when = [r.passkeyPolicy!.required_from ? `from ${r.passkeyPolicy!.required_from} risk up` : '', r.passkeyPolicy!.own_requests ? "for requests made under the approver's own account" : ''].filter(Boolean).join(' and ');
    const lacking = members.filter((m) => !r.passkeys!.get(m));
    checks.push(
      lacking.length
        ? fail('passkeys', `the policy accepts only a passkey ${when}, and ${lacking.join(', ')} ${lacking.length === 1 ? 'has' : 'have'} none: ${lacking.length === members.length ? 'nobody can approve those' : 'they cannot approve those'}`, 'each of them registers a passkey (docs/security.md, "Passkeys"), or set `required_from = "never"` in [passkeys] and `sudo airlock policy reload`')
        : pass('passkeys', `the policy accepts only a passkey ${when}; every approver has one`),
    );
  }
  return checks;
}

/** What factors an approver holds, from the log: "TOTP, 2 passkeys". */
function factorsOf(r: Reached, member: string): string {
  const n = r.passkeys?.get(member) ?? 0;
  return [r.enrolled?.has(member) ? 'TOTP' : '', n ? `${n} passkey${n === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ') || 'none';
}

/**
 * An agent under an approver's account (setup wrote its MCP entry here): the daemon then needs
 * the approver's code for every request made under this account, which the agent cannot type;
 * without a factor enrolled, nothing the agent asks can be approved by this account, and the
 * agent's account approves for others. It fails only when the account has no factor.
 */
function agentAccountCheck(r: Reached | AirlockError): Check | null {
  if (r instanceof AirlockError || r.principal.uid === 0) return null;
  const p = r.principal;
  let entries: string[];
  try {
    entries = agentEntries();
  } catch {
    return null;
  }
  if (entries.length === 0) return pass('agent account', `no agent is set up under ${p.user} (\`airlock setup\` wrote no MCP entry here)`);
  if (!p.approver) return pass('agent account', `an agent runs as ${p.user} (${entries.join(', ')}), which is not an approver`);
  if (r.enrolled?.has(p.user)) return pass('agent account', `an agent runs as ${p.user}, an approver: every request made under this account needs ${p.user}'s code, which the agent cannot read`);
  return fail('agent account', `an agent runs as ${p.user} (${entries.join(', ')}), an approver with no second factor`, `\`airlock totp enroll\` now (then its requests need your code), or give the agent an account of its own outside ${APPROVER_GROUP} (see the README)`);
}

/** The code the root service loads (this node, this checkout's whole package tree): root's, and writable by nobody else. */
function codeCheck(): Check {
  const { problems, walked } = checkDaemonCode(CHECKOUT);
  if (problems.length === 0) return pass('daemon code', `${process.execPath} and the ${walked} files and directories the daemon loads from ${CHECKOUT} are root's, writable by root only`);
  return fail('daemon code', `the daemon runs as root code that others can change: ${describeUntrusted(problems, 3)}`, untrustedFix(problems));
}

/**
 * For the person behind this root process (the kernel's login uid: whoever ran sudo): whether
 * sudo caches their password. Only root reads sudo's configuration, and the person who just ran
 * `sudo airlock doctor` is the one whose cached sudo an agent under their account would borrow.
 */
function sudoCheck(): Check | null {
  if (process.getuid?.() !== 0) return null;
  const person = personBehindRoot();
  if (!person) return null;
  let lines;
  try {
    lines = readSudoers();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null; // no sudo here
    return fail('sudo cache', `cannot read sudo's configuration: ${(e as Error).message}`, 'sudo visudo -c says what is wrong with it');
  }
  const account = accountNamed(person, readText('/etc/passwd') ?? '', readText('/etc/group') ?? '')!;
  const s = sudoCache(lines, account);
  const risk = cacheRisk(person, s);
  if (!risk) return pass('sudo cache', s.maySudo ? `sudo asks ${person} for the password every time (timestamp_timeout=0)` : `${person} may not run sudo`);
  const own = 'or run the agent under an account of its own that may not sudo (README: Give the agent an account)';
  return fail('sudo cache', `${risk}, and read the approval key`, s.noPassword
    ? `remove NOPASSWD for ${person} (${s.noPassword}), ${own}`
    : `sudo airlock install --no-start --sudo-no-cache ${person} (writes ${DROP_IN_PATH}: Defaults:${person} timestamp_timeout=0, so sudo asks every time), ${own}`);
}

function policyCheck(): Check {
  const problem = policyFileProblem(DEFAULT_POLICY_PATH);
  if (problem === 'absent') return pass('policy file', `${DEFAULT_POLICY_PATH} is absent: the built-in default applies`);
  if (problem) return fail('policy file', `${problem.message}: the daemon refuses it at its next start or reload`, problem.hint ?? `sudo chown root: ${DEFAULT_POLICY_PATH} && sudo chmod 644 ${DEFAULT_POLICY_PATH}`);
  return pass('policy file', `${DEFAULT_POLICY_PATH} is root-owned and writable by root only`);
}

function checkpointCheck(files: ReturnType<typeof stateFiles>): Check {
  if (!existsSync(files.checkpoints)) return fail('checkpoint sink', `${files.checkpoints} does not exist yet`, 'the daemon creates it at its first start: sudo systemctl start airlock');
  let attrs = '';
  try {
    attrs = run('/usr/bin/lsattr', ['--', files.checkpoints]).split(' ')[0] ?? '';
  } catch {}
  return attrs.includes('a')
    ? pass('checkpoint sink', `${files.checkpoints} is append-only`)
    : fail('checkpoint sink', `${files.checkpoints} is not append-only: a root attacker could cut it unnoticed`, `put ${files.checkpoints} on a file system that supports chattr +a (ext4, xfs), then sudo systemctl restart airlock`);
}

function storeAndLogChecks(r: Reached | AirlockError): Check[] {
  if (r instanceof AirlockError) return [];
  const a = r.audit;
  const journal = 'keep a copy of /var/lib/airlock, and see `sudo journalctl -u airlock`';
  const store =
    a.status === 'cannot_verify' && a.reason?.startsWith('the daemon did not give the log')
      ? fail('store', a.reason, journal)
      : r.store === null
        ? pass('store', `the daemon's store opens and serves the log (${a.entries} entries); its consistency check is for approvers and admins`)
        : r.store.ok
          ? pass('store', `opens, serves the log, and passes its consistency check (quick_check)`)
          : fail('store', `its consistency check (quick_check) fails: ${r.store.result.join('; ')}`, journal);
  const log =
    a.status === 'intact'
      ? pass('audit log', `intact: ${a.entries} entries verified with the key in ${a.key.path ?? 'the daemon'}${a.checkpoint ? `, consistent with the checkpoint of ${a.checkpoint.ts}` : ''}`)
      : a.status === 'broken'
        ? fail('audit log', `BROKEN at entry ${a.first_broken?.seq ?? '?'}: ${a.first_broken?.reason}`, 'keep a copy of /var/lib/airlock and /var/log/airlock as evidence, and run `airlock audit verify` on it')
        : fail('audit log', `cannot verify: ${a.reason}`, 'airlock audit verify --help');
  return [store, log];
}

const MB = 1024 * 1024;

/**
 * Free space in the state directory against the policy's [store] thresholds: as the daemon
 * measures and judges it (store.check), or, when the daemon cannot say, measured here against
 * the policy file's thresholds.
 */
function diskSpaceCheck(r: Reached | AirlockError, stateDir: string): Check {
  const s = r instanceof AirlockError ? undefined : r.store?.space;
  const local = s ?? localSpace(stateDir);
  if (typeof local === 'string') return fail('disk space', local, `sudo airlock doctor (as root, or as an approver while the daemon runs)`);
  const free = `${Math.floor(local.free_bytes / MB)} MB free in ${local.state_dir}`;
  const limits = `previews stop under ${Math.floor(local.min_free_bytes / MB)} MB; ${Math.floor(local.reserve_bytes / MB)} MB reserved for approved executes and the log`;
  const fix = `free space in ${local.state_dir} (or lower min_free_mb in the [store] section of ${DEFAULT_POLICY_PATH}, then \`sudo airlock policy reload\`)`;
  if (local.state === 'ok') return pass('disk space', `${free} (${limits}${s ? (local.reserve_held ? ', held' : ', not held yet') : ''})`);
  if (local.state === 'low') return fail('disk space', `only ${free}: the daemon refuses new previews (${limits})`, fix);
  return fail('disk space', `${free}: the disk was full and the reserve was released; the daemon refuses new previews`, fix);
}

/** The state directory measured here, against the policy file's thresholds (the daemon's answer is better: it knows the policy in force). */
function localSpace(stateDir: string): StorageSpace | string {
  let free: number;
  try {
    const st = statfsSync(stateDir);
    free = st.bavail * st.bsize;
  } catch (e) {
    return `cannot measure ${stateDir}: ${(e as Error).message}`;
  }
  let store = DEFAULT_POLICY.store;
  try {
    if (existsSync(DEFAULT_POLICY_PATH)) store = parsePolicy(readFileSync(DEFAULT_POLICY_PATH, 'utf8')).store;
  } catch {
    // the policy check says what is wrong with the file; the defaults stand in here
  }
  return { state: free < store.minFreeBytes ? 'low' : 'ok', state_dir: stateDir, free_bytes: free, min_free_bytes: store.minFreeBytes, reserve_bytes: store.reserveBytes, reserve_held: false };
}

function keyChecks(files: ReturnType<typeof stateFiles>): Check[] {
  if (process.getuid?.() !== 0) return [];
  return [files.auditKey, files.approvalKey, files.totpKey, files.maskKey].map((k) => {
    if (!existsSync(k)) return fail(`key ${k}`, 'missing', 'the daemon creates it at its first start: sudo systemctl start airlock');
    const mode = statSync(k).mode & 0o777;
    return mode & 0o077 ? fail(`key ${k}`, `mode ${mode.toString(8)}: others may read it`, `sudo chmod 600 ${k}`) : pass(`key ${k}`, `mode ${mode.toString(8)}`);
  });
}

export async function runDoctor(o: { stateDir: string; logDir: string }, socket: string): Promise<Check[]> {
  const files = stateFiles(o.stateDir, o.logDir);
  const major = Number(process.versions.node.split('.')[0]);
  const checks: Check[] = [
    major >= MIN_NODE ? pass('node', `Node ${process.versions.node}`) : fail('node', `Node ${process.versions.node} is older than ${MIN_NODE}`, `install Node ${MIN_NODE} or newer (Debian 12: NodeSource or nvm)`),
    existsSync(join(CHECKOUT, 'native', 'build', 'Release', 'airlock_native.node')) ? pass('native addon', 'built') : fail('native addon', 'the peer-credential addon is not built', PACKAGED ? 'sudo apt install --reinstall airlock (the package carries it built)' : `cd ${CHECKOUT} && sudo npm install (needs g++, make and python3)`),
  ];
  const reached = await askDaemon(socket, files).catch((e) => (e instanceof AirlockError ? e : new AirlockError('transient', 'daemon_unreachable', (e as Error).message)));
  checks.push(daemonCheck(socket, reached), sessionCheck(), ...approverChecks(reached));
  const agent = agentAccountCheck(reached);
  if (agent) checks.push(agent);
  const sudo = sudoCheck();
  checks.push(codeCheck(), ...(sudo ? [sudo] : []), policyCheck(), checkpointCheck(files), ...storeAndLogChecks(reached), diskSpaceCheck(reached, o.stateDir), ...keyChecks(files));
  for (const g of AIRLOCK_GROUPS) if (!groupExists(g)) checks.push(fail(`group ${g}`, 'missing', 'sudo airlock install'));
  return checks;
}

export async function doctor(o: { stateDir: string; logDir: string; json?: boolean }, cmd: Command): Promise<number> {
  const { socketPath } = await import('../client/client.js');
  const checks = await runDoctor(o, socketPath(cmd.optsWithGlobals().socket));
  const failed = checks.filter((x) => !x.ok).length;
  // A fix is shown beside its failing check only: a passing check needs nothing done.
  const shown = checks.map((x) => (x.ok ? { name: x.name, ok: true, detail: x.detail } : x));
  if (o.json) printJson({ ok: failed === 0, checks: shown });
  else {
    // Details quote the host (user names, paths, the daemon's messages): escaped before the terminal.
    const line = (x: Check) => `${x.ok ? c.green('✓') : c.red('✗')} ${escapeText(x.name)}: ${escapeText(x.detail)}\n${x.ok || !x.fix ? '' : `  ${c.cyan('fix')}  ${escapeText(x.fix)}\n`}`;
    process.stdout.write(checks.map(line).join('') + (failed ? `\n${failed} problem(s)\n` : '\nall good\n'));
  }
  return failed ? 1 : 0;
}
