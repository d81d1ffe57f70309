/**
 * Grants for configuration edits (./grant-record.ts): made and revoked by a person through a
 * High change, listed by anyone. The grant's file is the whole of it: the edits read it at
 * preview and again at execution, so a revocation or the expiry stops the next edit at once.
 */
import { z } from 'zod';
import { AirlockError, fail } from '../../../protocol/errors.js';
import { action, unchanged, type Host, type PasswdEntry } from '../../action.js';
import { command, fileDelete, fileWrite } from '../../mechanism.js';
import { params, unitName, userName } from '../../params.js';
import { exact } from '../../rollback.js';
import { findUser } from '../../lib/accounts.js';
import { CHECKER, CHECKERS } from '../../lib/config-checkers.js';
import { readUnit, refuseMissing, refuseProtected, type UnitState } from '../../lib/systemd.js';
import { pathState } from './allowlist.js';
import { editRiskOf, FOLLOW_UPS, GRANT_FILES, grantableProblem, NEVER_GRANTED, grantFolder, grantName, grantPath, GRANTS_DIR, grantText, MAX_GRANT_DAYS, MAX_GRANT_MS, readGrant, utcTime, type GrantRecord, type GrantState } from './grant-record.js';

const ROOT = { uid: 0, gid: 0 };
/** A grant shorter than this would expire before anyone could use it. */
const MIN_GRANT_MS = 60_000;

const grantParams = params({
  name: grantName,
  account: userName.describe('the account whose requests may edit under the folder (the agent\'s)'),
  folder: grantFolder.describe('the folder whose files may be edited, e.g. /etc/nginx/sites-available'),
  checker: z.enum(CHECKERS).describe(`what checks each edit before it takes effect: ${CHECKERS.join(', ')}`),
  unit: unitName.optional().describe('the unit to reload (or restart) after each edit'),
  follow_up: z.enum(FOLLOW_UPS).optional().describe('reload (default) or restart the unit after each edit'),
  expires_at: utcTime.describe(`when the grant ends, at most ${MAX_GRANT_DAYS} days ahead (UTC, e.g. 2026-12-08T18:00:00Z); \`airlock grant --for 8h\` computes it`),
}).refine((p) => p.follow_up === undefined || p.unit !== undefined, 'follow_up needs a unit');

type GrantParams = z.infer<typeof grantParams>;

interface GrantCreateState {
  grant: GrantState;
  user: PasswdEntry | null;
  folder: Awaited<ReturnType<typeof pathState>>;
  /** Whether /etc/airlock, where the grants folder is made, is a real directory. */
  configDir: boolean;
  unit: UnitState | null;
  /** The clock when read, for the expiry's bounds (never shown: the preview must read the same at execution). */
  now: number;
}

/** The record GrantConfigEdits writes: everything from the parameters and the account's uid as read. */
function recordOf(p: GrantParams, uid: number, followUpUser: string | null): GrantRecord {
  return {
    version: 1,
    name: p.name,
    account: p.account,
    uid,
    folder: p.folder,
    checker: p.checker,
    follow_up: p.unit === undefined ? null : { verb: p.follow_up ?? 'reload', unit: p.unit },
    edit_risk: editRiskOf(p.folder, p.checker, followUpUser),
    expires_at: new Date(Date.parse(p.expires_at)).toISOString(),
  };
}

export const grantConfigEdits = action({
  name: 'GrantConfigEdits',
  family: 'files',
  requestedAtConsole: true,
  description: `Let one account propose edits (CreateGrantedFile, ReplaceGrantedFile, PatchGrantedFile, RemoveGrantedFile) to the files under one configuration folder until a time (at most ${MAX_GRANT_DAYS} days), each edit checked by the chosen checker before it takes effect and followed by a reload of the chosen unit. Written as ${GRANTS_DIR}/NAME.json; a grant of the same name is replaced.`,
  risk: 'high',
  readOnly: false,
  // A grant runs nothing itself; the edits it allows declare their own.
  runsPrograms: false,
  rollback: exact(),
  params: grantParams,
  files: GRANT_FILES,
  example: { name: 'nginx-sites', account: 'agent', folder: '/etc/nginx/sites-available', checker: 'nginx', unit: 'nginx.service', expires_at: '2026-12-08T18:00:00Z' },
  current: async (p, host): Promise<GrantCreateState> => {
    const folder = await pathState(p.folder, host);
    // Every file under the folder is handed to programs by name (the checker, the service): its path must be trusted.
    if (folder.stat?.isDir) await host.trustedPath(p.folder);
    return {
      grant: await readGrant(host, p.name),
      user: await findUser(host, p.account),
      folder,
      configDir: (await pathState(NEVER_GRANTED, host)).stat?.isDir === true,
      unit: p.unit === undefined ? null : await readUnit(host, p.unit),
      now: Date.now(),
    };
  },
  check: (p, cur) => {
    const problem = grantableProblem(p.folder);
    if (problem) fail('authorization', 'not_grantable', problem, 'grant the folder of one service or application, e.g. /etc/nginx/sites-available');
    if (cur.folder.link) fail('authorization', 'symlink_in_path', `${cur.folder.link} is a symbolic link; a grant covers a real folder`);
    if (!cur.folder.stat?.isDir) fail('validation', 'no_such_directory', `${p.folder} is not a directory on this host`);
    if (!cur.user) return fail('validation', 'no_such_user', `there is no user ${p.account} on this host`, 'list users with the ListUsers action');
    if (cur.user.uid === 0) fail('authorization', 'root_grant', 'root needs no grant; Airlock grants edits to the account an agent runs as');
    const until = Date.parse(p.expires_at);
    if (until < cur.now + MIN_GRANT_MS) fail('validation', 'expires_too_soon', `${p.expires_at} is less than a minute from now`);
    if (until > cur.now + MAX_GRANT_MS) fail('validation', 'expires_too_late', `${p.expires_at} is more than ${MAX_GRANT_DAYS} days from now`, `a grant lasts at most ${MAX_GRANT_DAYS} days; grant it again when it ends`);
    if (cur.grant.problem) fail('integrity', 'grant_unreadable', `grant ${p.name}: ${cur.grant.problem}`, 'a person looks at it and removes it by hand');
    if (!cur.configDir) fail('conflict', 'not_installed', `${NEVER_GRANTED} does not exist: Airlock is not installed on this host`, 'sudo airlock install');
    if (cur.unit && p.unit) {
      refuseMissing(p.unit, cur.unit);
      refuseProtected(p.follow_up === 'restart' ? 'restart' : 'reload', p.unit, cur.unit);
    }
    const record = recordOf(p, cur.user.uid, cur.unit?.user ?? null);
    if (cur.grant.record && grantText(cur.grant.record) === grantText(record)) return unchanged(`grant ${p.name} already says exactly this`);
  },
  preview: (p, cur) => {
    const record = recordOf(p, cur.user?.uid ?? -1, cur.unit?.user ?? null);
    const c = CHECKER[record.checker];
    const then = record.follow_up ? `, then ${record.follow_up.verb} ${record.follow_up.unit}` : '';
    return {
      summary: `${cur.grant.record ? 'Replace' : 'Make'} grant ${p.name}: ${p.account} may propose edits under ${p.folder} until ${record.expires_at}, each checked by ${c.describe}${then}; each edit is ${record.edit_risk === 'high' ? 'High' : 'Medium'}`,
      change: { grant: record, replaces: cur.grant.record },
      warnings: [
        ...(record.edit_risk === 'medium' ? [`a policy rule naming grant ${p.name} may approve its Medium edits that pass the check, without a person: ${record.follow_up!.unit} runs as ${cur.unit?.user ?? null}, and whatever else reads ${p.folder} reads what the agent writes`] : []),
        ...(cur.unit && record.follow_up?.verb === 'reload' && cur.unit.active !== 'active' ? [`${record.follow_up.unit} is ${cur.unit.active}: an edit's reload would fail while it is not running`] : []),
      ],
    };
  },
  mechanism: (p, cur) => [fileWrite(grantPath(p.name), grantText(recordOf(p, cur.user!.uid, cur.unit?.user ?? null)), { mode: 0o644, owner: ROOT, parent: { mode: 0o755, owner: ROOT } })],
});

export const revokeConfigGrant = action({
  name: 'RevokeConfigGrant',
  family: 'files',
  requestedAtConsole: true,
  description: `Revoke a grant for configuration edits (remove ${GRANTS_DIR}/NAME.json): the next edit under it is refused, and one approved but not yet run is refused at execution.`,
  // High as the grant is: a revert of a revocation makes the grant again.
  risk: 'high',
  readOnly: false,
  runsPrograms: false,
  rollback: exact(),
  params: params({ name: grantName }),
  files: GRANT_FILES,
  example: { name: 'nginx-sites' },
  current: ({ name }, host) => readGrant(host, name),
  check: ({ name }, cur) => {
    if (!cur.record && !cur.problem) return unchanged(`there is no grant ${name}`);
  },
  preview: ({ name }, cur) => ({
    summary: cur.record ? `Revoke grant ${name} (${cur.record.account} under ${cur.record.folder}, until ${cur.record.expires_at})` : `Remove ${grantPath(name)}, which is not a grant Airlock wrote (${cur.problem})`,
    change: { revoked: cur.record },
  }),
  mechanism: ({ name }) => [fileDelete(grantPath(name))],
});

export const listConfigGrants = action({
  name: 'ListConfigGrants',
  family: 'files',
  requestedAtConsole: true,
  description: `List the grants for configuration edits (${GRANTS_DIR}/*.json, one line of JSON each): who may edit under which folder, checked how, until when.`,
  risk: 'low',
  readOnly: true,
  // Names of accounts and folders, a checker and a time: no file contents, no secrets.
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [GRANTS_DIR],
  example: {},
  current: async (_p, host: Host) => {
    const st = await pathState(GRANTS_DIR, host);
    if (st.stat?.isDir) await host.trustedPath(GRANTS_DIR); // grep reads it by name
    return st;
  },
  check: (_p, cur) => {
    if (cur.link) throw new AirlockError('authorization', 'symlink_in_path', `${cur.link} is a symbolic link`);
  },
  preview: (_p, cur) => ({ summary: cur.stat?.isDir ? `List the grants in ${GRANTS_DIR}` : `List the grants: there are none (${GRANTS_DIR} does not exist)`, change: null }),
  // grep -r does not follow links; exit 1: no grant at all, an answer.
  mechanism: (_p, cur) => (cur.stat?.isDir ? [command('grep', ['-r', '-H', '--include=*.json', '', '--', GRANTS_DIR], { okCodes: [0, 1], paths: [GRANTS_DIR] })] : []),
});
