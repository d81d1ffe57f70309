/**
 * `airlock sessions`: the "this session" lane's grants in force (a person approved a request
 * in the console and let the same requester's identical requests through for a while), and
 * `airlock sessions revoke ID` to end one. Declarations here; the bodies load when they run.
 */
import { Command } from 'commander';
import { command } from './lazy.js';
import { c } from './ui.js';

const HELP = `
In the console, a person approving a Low or Medium request with their passkey can let the
same requester's identical requests (same action, same parameters) through for up to 8
hours. Each grant is a signed session_granted entry; each request it approves is an
approval_granted entry naming it. High changes, plans and proposals never get one.

  airlock sessions                        list the grants in force
  airlock sessions revoke sg_0123...      end one now: identical requests wait for a person again

A policy reload or a daemon restart ends every grant. Approvers and admins may list and
revoke any grant (revoking only takes an approval away).

Exit status: 0 done; 3 refused (not an approver or admin); 5 no such grant in force (or a
malformed id); 7 the daemon is unreachable.`;

const connect = () => import('./connect.js');

export function sessionsCommand(): Command {
  const sessions = new Command('sessions')
    .description('session grants in force: identical requests a person let through from the console for a while')
    .option('--json', 'print {grants: [...]} as JSON')
    .addHelpText('after', HELP)
    .action(
      command(async (o: { json?: boolean }, cmd: Command) => {
        const [{ askAndShow }, { renderSessionGrants }] = await Promise.all([connect(), import('./render.js')]);
        await askAndShow(cmd, o.json, (cl) => cl.call('session.list'), (r) => (r.grants.length ? renderSessionGrants(r.grants) + `\n${c.cyan('next')}  airlock sessions revoke ID   (identical requests wait for a person again)\n` : 'no session grants in force\n'));
      }),
    );
  sessions
    .command('revoke')
    .description('end a session grant now (a signed session_revoked entry)')
    .argument('<grant>', 'the grant id, sg_ and 24 hex digits, as `airlock sessions` lists it')
    .option('--json', 'print {grant_id, revoked_at, uses} as JSON')
    .addHelpText('after', HELP)
    .action(
      command(async (id: string, _o: { json?: boolean }, cmd: Command) => {
        const { askAndShow } = await connect();
        // `sessions` takes --json too: after the grant id, commander gives it to whichever declares it first.
        await askAndShow(cmd, Boolean(cmd.optsWithGlobals().json), (cl) => cl.call('session.revoke', { grant_id: id }), (r) => `revoked ${r.grant_id} (it approved ${r.uses} request(s)); identical requests wait for a person again\n`);
      }),
    );
  return sessions;
}
