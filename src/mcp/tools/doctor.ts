/**
 * airlock_doctor: is the daemon reachable, who does it see in this very process, which
 * policy is in force, can anyone approve (and approve what needs a second factor), is the
 * log intact, and what to fix. It works with no daemon at all: then it says how to start
 * or reach it, and what this account's groups are.
 */
import { readFileSync } from 'node:fs';
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { WireError } from '../../protocol/errors.js';
import type { PolicyView, Principal } from '../../protocol/messages.js';
import { APPROVER_GROUP, ROLE_GROUPS } from '../../protocol/risk.js';
import { approversFrom, enrolledFromLog, groupNames } from '../../client/approvers.js';
import { verifyAndKeep, type AuditReport } from '../../client/daemon-audit.js';
import { accountName, withDaemon } from '../daemon.js';
import { hints, type ToolDeps } from '../deps.js';
import { role, wireError } from '../schemas.js';
import { answer, errorText, failure, wireOf } from '../tool-result.js';
import { auditReport } from './audit-verify.js';
import { staleGroups, staleGroupsAdvice } from '../../client/stale-groups.js';

const doctorOut = z.object({
  ok: z.boolean(),
  account: z.object({ user: z.string(), uid: z.number().int(), groups: z.array(z.string()) }),
  daemon: z.object({ socket: z.string(), reachable: z.boolean(), version: z.string().nullable(), error: wireError.nullable() }),
  principal: z.object({ user: z.string(), uid: z.number().int(), via: z.string(), role, approver: z.boolean(), person: z.string().nullable() }).nullable(),
  policy: z.object({ digest: z.string(), source: z.string(), reads: z.string(), second_factor_from: z.string(), rules: z.number().int() }).nullable(),
  approvers: z.object({ known: z.boolean(), people: z.array(z.object({ user: z.string(), second_factor: z.boolean().nullable() })), why_unknown: z.string().nullable() }),
  audit: auditReport.nullable(),
  fixes: z.array(z.string()),
  notes: z.array(z.string()),
});
type Doctor = z.infer<typeof doctorOut>;

const readText = (p: string) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
};

function localAccount(groupText: string | null): Doctor['account'] {
  return { user: accountName(), uid: process.getuid?.() ?? -1, groups: groupText ? groupNames(groupText, process.getgroups?.() ?? []) : [] };
}

/** What the daemon said when it would not talk to us, as the fix a person makes. */
function refusalFix(e: WireError, user: string): string {
  if (e.code === 'no_role') {
    // Added to a group after the agent's session began: the same advice every role error gives (src/client/stale-groups.ts).
    const stale = staleGroups();
    if (stale) return `${staleGroupsAdvice(stale)}; then restart the agent`;
    return `the agent's account is in no airlock group: sudo usermod -aG ${ROLE_GROUPS.dev} ${user}, then log in again (and restart the agent)`;
  }
  return `${e.message}${e.hint ? `: ${e.hint}` : ''}`;
}

interface Reached {
  version: string;
  principal: Principal;
  policy: PolicyView | null;
  audit: AuditReport;
  enrolled: Set<string> | null;
}

async function ask(deps: ToolDeps): Promise<Reached> {
  return withDaemon(deps.target, async (cl) => {
    const policy = await cl.call('policy.show').catch(() => null);
    const { report, rows } = await verifyAndKeep(cl, deps.audit);
    return { version: cl.welcome.version, principal: cl.welcome.principal, policy, audit: report, enrolled: rows ? enrolledFromLog(rows) : null };
  });
}

export async function diagnose(deps: ToolDeps): Promise<Doctor> {
  const groupText = readText('/etc/group');
  const account = localAccount(groupText);
  const fixes: string[] = [];
  const notes: string[] = [];
  const socket = deps.target.socket;
  let reached: Reached | null = null;
  let error: WireError | null = null;
  try {
    reached = await ask(deps);
  } catch (e) {
    error = wireOf(e);
  }
  const unreachable = error !== null && (error.code === 'daemon_unreachable' || error.code === 'connection_closed' || error.code === 'timeout');
  if (error) fixes.push(unreachable ? `the daemon is not reachable at ${socket}${error.hint ? `: ${error.hint}` : ''}` : refusalFix(error, account.user));
  // What this account's groups are here, unless the daemon's refusal said it already.
  if (!reached && account.uid !== 0 && error?.code !== 'no_role') {
    const roles = account.groups.filter((g) => (Object.values(ROLE_GROUPS) as string[]).includes(g));
    notes.push(roles.length ? `this account (${account.user}) is in ${roles.join(', ')} here` : `this account (${account.user}) is in no airlock group here: sudo usermod -aG ${ROLE_GROUPS.dev} ${account.user}, then log in again`);
  }

  const p = reached?.principal ?? null;
  if (p) {
    if (p.uid === 0) fixes.push('the agent runs as root: run it as an unprivileged account of its own (in airlock-dev or airlock-admin), so the daemon can tell it from the people who approve');
    if (p.approver) fixes.push(`the agent's account (${p.user}) is in ${APPROVER_GROUP}: give the agent an account of its own that is not, so that no approval is made under the account that asked`);
    if (p.role === 'observer') notes.push(`role observer: ${p.user} can propose low-risk reads only (${ROLE_GROUPS.dev} for medium risk, ${ROLE_GROUPS.admin} for high)`);
  }
  const policy = reached?.policy
    ? { digest: reached.policy.digest, source: reached.policy.source, reads: reached.policy.reads, second_factor_from: reached.policy.second_factor_from, rules: reached.policy.rules.length }
    : null;
  if (policy) notes.push(`policy ${policy.source === 'file' ? 'from its file' : 'built-in default'} (${policy.digest}): reads ${policy.reads}, second factor from ${policy.second_factor_from} risk, ${policy.rules} rule(s)`);

  // Who may approve is in this host's group file, which says nothing about a daemon on another host.
  let approvers: Doctor['approvers'];
  const passwd = readText('/etc/passwd');
  const members = socket.startsWith('tcp:') || groupText === null ? undefined : approversFrom(groupText, passwd ?? '');
  if (members === undefined) {
    approvers = { known: false, people: [], why_unknown: socket.startsWith('tcp:') ? `the daemon is reached over ${socket}: its host's groups are not readable from here` : '/etc/group is not readable' };
  } else if (members === null) {
    approvers = { known: true, people: [], why_unknown: null };
    fixes.push(`there is no ${APPROVER_GROUP} group: run \`sudo airlock install\``);
  } else {
    const enrolled = reached?.enrolled ?? null;
    approvers = { known: true, people: members.map((user) => ({ user, second_factor: enrolled ? enrolled.has(user) : null })), why_unknown: null };
    if (members.length === 0) fixes.push(`nobody is in ${APPROVER_GROUP}, so only the policy approves anything: sudo usermod -aG ${APPROVER_GROUP} PERSON (a person, not the agent's account)`);
    else if (enrolled && !members.some((m) => enrolled.has(m))) fixes.push("no approver has a second factor, so no high-risk step can be approved: the host's first approver runs `sudo airlock totp enroll` in their own login session, then approves the others' enrolments (`airlock totp approve --user NAME`)");
    else if (enrolled) for (const m of members.filter((x) => !enrolled.has(x))) notes.push(`${m} has no second factor: they approve only what needs none (\`airlock totp enroll\` as themselves, then another approver runs \`airlock totp approve --user ${m}\`)`);
  }

  const audit = reached?.audit ?? null;
  if (audit?.status === 'broken') fixes.push(`the audit log is broken at entry ${audit.first_broken?.seq ?? '?'}: ${audit.first_broken?.reason}; tell the host's administrator`);
  if (audit?.status === 'cannot_verify') notes.push(`the audit log could not be verified: ${audit.reason}`);
  if (audit?.key.source === 'daemon') notes.push(`the audit key came from the daemon, not from ${deps.audit.publicKeyPath}: pass \`--pubkey FILE\` to \`airlock mcp-server\` with a copy you trust`);

  return {
    ok: fixes.length === 0,
    account,
    daemon: { socket, reachable: reached !== null || (error !== null && !unreachable), version: reached?.version ?? null, error },
    principal: p ? { user: p.user, uid: p.uid, via: p.via, role: p.role, approver: p.approver, person: p.person ?? null } : null,
    policy,
    approvers,
    audit,
    fixes,
    notes,
  };
}

function doctorText(d: Doctor): string {
  const lines = [
    `daemon: ${d.daemon.reachable ? `reachable at ${d.daemon.socket}${d.daemon.version ? ` (version ${d.daemon.version})` : ''}` : `NOT reachable at ${d.daemon.socket}`}`,
    d.principal ? `the daemon sees this process as ${d.principal.user} (uid ${d.principal.uid}, via ${d.principal.via}), role ${d.principal.role}${d.principal.approver ? ', approver' : ''}` : d.daemon.error ? errorText(d.daemon.error) : '',
    d.approvers.known ? `approvers: ${d.approvers.people.length ? d.approvers.people.map((a) => `${a.user}${a.second_factor === null ? '' : a.second_factor ? ' (second factor)' : ' (no second factor)'}`).join(', ') : 'none'}` : `approvers: unknown (${d.approvers.why_unknown})`,
    d.audit ? `audit: ${d.audit.status}${d.audit.status === 'cannot_verify' ? '' : `, ${d.audit.entries} entries`}` : '',
    ...d.fixes.map((f) => `FIX: ${f}`),
    ...d.notes.map((n) => `note: ${n}`),
    d.ok ? 'nothing to fix' : '',
  ];
  return lines.filter(Boolean).join('\n');
}

export function registerDoctor(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'airlock_doctor',
    {
      title: 'Check the Airlock setup',
      description:
        'Check this setup and say what to fix: whether the daemon is reachable (and at which socket), the principal and role the daemon sees for this very process, the policy in force (digest), whether approvers exist and have a second factor, whether the audit log verifies. Works with no daemon running. Nothing changes.',
      inputSchema: z.strictObject({}),
      outputSchema: doctorOut,
      annotations: hints({ readOnly: true, destructive: false, idempotent: true }),
    },
    async () => {
      try {
        const d = await diagnose(deps);
        return answer(d, doctorText(d));
      } catch (e) {
        return failure(e);
      }
    },
  );
}
