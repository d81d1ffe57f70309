/**
 * Edits under a grant (./grant-record.ts): create, replace, patch or remove one file under the
 * granted folder, proposed by the granted account alone. Each edit is checked before it takes
 * effect: on a staged copy (Host.checkStaged) once the caller is known to be allowed (`verify`,
 * after the role and requester checks; at execution after the change is known to be the approved
 * one), and live after the write where the service can only check its whole configuration
 * (`nginx -t`): a failing live check fails the job, and the executor restores the file's exact
 * previous bytes. Then the grant's follow-up reloads the service. The risk is the grant's: Medium
 * edits may be approved by a policy rule naming the grant; High ones never are.
 */
import { dirname } from 'node:path';
import { z } from 'zod';
import { AirlockError, fail } from '../../../protocol/errors.js';
import { action, unchanged, type ActionDeclaration, type Host } from '../../action.js';
import { command, fileDelete, fileWrite, type CommandStep, type Step } from '../../mechanism.js';
import { absolutePath, boundedString, params } from '../../params.js';
import { exact } from '../../rollback.js';
import { CHECKER, type CheckerName } from '../../lib/config-checkers.js';
import { patched } from '../../lib/unified-diff.js';
import { isRunning, readUnit, type UnitState } from '../../lib/systemd.js';
import { pathState } from './allowlist.js';
import { editRiskOf, grantInForce, grantName, outsideGrant, readGrant, type GrantRecord, type GrantState } from './grant-record.js';

/** A configuration file an edit writes, and a diff it applies: small enough to review whole. */
export const MAX_EDIT_BYTES = 64 * 1024;
/** New files are plain configuration: never executable, readable by all as most configuration is. */
const NEW_FILE_MODE = 0o644;

/** A file's text: tabs and newlines, no other control character (a terminal escape has no place in a configuration file). */
const fileText = (what: string) =>
  boundedString(MAX_EDIT_BYTES, `${what} must be at most ${MAX_EDIT_BYTES} bytes`)
    .refine((s) => Buffer.byteLength(s) <= MAX_EDIT_BYTES, `${what} must be at most ${MAX_EDIT_BYTES} bytes`)
    .refine((s) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(s), `${what} must not contain control characters other than tab and newline`);

const grantParam = grantName.describe('the grant the edit is made under (`airlock grants` lists them)');
const pathParam = absolutePath.describe('the file, under the grant\'s folder');

/** What an edit reads: the grant, the file as it is, what it will be, and what the checker said of it. */
export interface EditState {
  grant: GrantState;
  path: string;
  /** The first symbolic link on the way to the file, if any. */
  link: string | null;
  stat: Awaited<ReturnType<Host['stat']>>;
  /** Hard links to the file: another name for it could be outside the grant. */
  links: number;
  /** The file's text now, or null when absent. */
  text: string | null;
  /** Its text after the edit (null: removed), or why it cannot be built (a diff that does not apply). */
  next: { text: string | null } | { problem: string };
  /** The follow-up unit, whose account (`user`) the risk is computed again from. */
  unit: UnitState | null;
  now: number;
}

type EditKind = 'create' | 'replace' | 'patch' | 'remove';

/**
 * Reads everything an edit decides on. Nothing is read through a link, and the file's folder must
 * be trusted all the way up (the checker and the service open the file by name). No checker runs
 * here: the state is read before the daemon knows the caller may ask (`verify` runs it after).
 */
async function readEdit(host: Host, grantNameValue: string, path: string, nextOf: (text: string | null) => { text: string | null } | { problem: string }): Promise<EditState> {
  const grant = await readGrant(host, grantNameValue);
  const now = Date.now();
  const base = { grant, path, link: null, stat: null, links: 0, text: null, next: { problem: 'no grant in force' }, unit: null, now };
  const g = grant.record;
  if (!g || Date.parse(g.expires_at) <= now || outsideGrant(g, path)) return base;
  const where = await pathState(path, host);
  if (where.link) return { ...base, link: where.link };
  // pathState walked every component without meeting a link: the parent is plain lstat's to read.
  const parent = await host.stat(dirname(path));
  if (!parent?.isDir) return { ...base, next: { problem: `${dirname(path)} is not a directory: an edit creates no folders` } };
  await host.trustedPath(dirname(path));
  const head = where.stat?.isFile ? await host.fileHead(path, 0) : null;
  // A file the agent may not read is never read here: its text would reach the preview.
  const readable = where.stat?.isFile === true && (where.stat.mode & 0o004) !== 0;
  const text = readable ? await host.readFile(path) : null;
  const next = where.stat && !readable ? { problem: 'not readable' } : nextOf(text);
  const unit = g.follow_up ? await readUnit(host, g.follow_up.unit) : null;
  return { grant, path, link: null, stat: where.stat, links: head?.links ?? 0, text, next, unit, now };
}

/** Whether the grant's checker checks this file at all: staged, live or both. */
const checkable = (checker: CheckerName, target: string): boolean => CHECKER[checker].staged(target) || CHECKER[checker].live(target) !== null;

/**
 * The staged check of an edit's new text, run once the daemon knows the caller may ask (after the
 * role and requester checks) and, at execution, that the change is the approved one. A checker
 * the daemon runs only on approved text (nginx -t, as root, loads what the text names) is skipped
 * at preview, and runs at execution before the write. Throws `config_invalid` with its words.
 */
async function verifyEdit(host: Host, cur: EditState): Promise<void> {
  const g = cur.grant.record;
  const next = 'text' in cur.next ? cur.next.text : null;
  if (!g || next === null || !CHECKER[g.checker].staged(cur.path)) return;
  const r = await stagedResult(host, g.checker, cur.path, next);
  if (r !== 'after_approval' && !r.ok) {
    fail('validation', 'config_invalid', `${CHECKER[g.checker].describe} refuses the new ${cur.path}:\n${r.problems.join('\n')}`, 'fix the configuration and propose the edit again; nothing was written');
  }
}

/**
 * The staged check, or 'after_approval' when the daemon runs this checker only on text a person
 * or a rule approved (nginx -t, as root, loads what the text names): at preview it says so, and at
 * execution, before the write, it runs.
 */
async function stagedResult(host: Host, checker: CheckerName, path: string, text: string): Promise<{ ok: true } | { ok: false; problems: string[] } | 'after_approval'> {
  try {
    return await host.checkStaged(checker, path, text);
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'check_after_approval') return 'after_approval';
    throw e;
  }
}

/** The refusals every edit shares; returns the grant in force. */
function refuseEdit(kind: EditKind, cur: EditState): GrantRecord {
  const g = grantInForce(cur.grant, cur.now);
  const outside = outsideGrant(g, cur.path);
  if (outside) fail('authorization', 'outside_grant', outside, `edit files under ${g.folder} only`);
  if (cur.link) fail('authorization', 'symlink_in_path', `${cur.link} is a symbolic link; an edit under a grant goes through real folders to a real file`, 'a person removes the link');
  if (cur.stat === null && kind !== 'create') fail('validation', 'no_such_file', `${cur.path} does not exist`, kind === 'remove' ? undefined : 'create it with CreateGrantedFile');
  if (kind === 'create' && cur.stat !== null) fail('conflict', 'file_exists', `${cur.path} exists already`, 'replace it with ReplaceGrantedFile, or patch it with PatchGrantedFile');
  if (cur.stat && !cur.stat.isFile) fail('validation', 'not_a_file', `${cur.path} is not a regular file`);
  if (cur.stat && cur.links > 1) fail('authorization', 'hard_linked', `${cur.path} has ${cur.links} names (hard links): another name could be outside the grant`, 'a person looks at it');
  if (cur.stat && (cur.stat.mode & 0o111) !== 0) fail('authorization', 'executable', `${cur.path} is executable; edits under a grant change configuration, never programs`);
  if (cur.stat && (cur.stat.mode & 0o004) === 0) fail('authorization', 'not_world_readable', `${cur.path} is not readable by every account; an edit under a grant would show its text to the agent`, 'a person edits it, or makes it readable if nothing in it is secret');
  if ('problem' in cur.next) fail('validation', 'edit_does_not_apply', `${cur.path}: ${cur.next.problem}`);
  if (!checkable(g.checker, cur.path)) fail('validation', 'not_checkable', `${CHECKER[g.checker].describe} checks neither a staged copy of ${cur.path} nor the configuration it belongs to`, 'edit the files the checker reads (a unit file or a drop-in for systemd-unit)');
  return g;
}

/** The follow-up as a step: a reload only of a unit that runs (a stopped one reads its configuration when it starts); a restart always. */
function followUpStep(g: GrantRecord, unit: UnitState | null): CommandStep | null {
  if (!g.follow_up || !unit) return null;
  if (g.follow_up.verb === 'reload' && !isRunning(unit)) return null;
  return command('systemctl', [g.follow_up.verb, '--', g.follow_up.unit]);
}

/**
 * The write (or removal), its live check, and the follow-up. With a follow-up, a first step that
 * changes nothing (the live check of the configuration as it is, or `systemctl is-active`) carries
 * the rollback's follow-up: undos run last first, so the file is restored before the service
 * reads it again, and a failed restart is followed by one with the old configuration.
 */
function editSteps(g: GrantRecord, cur: EditState, write: Step): Step[] {
  const live = CHECKER[g.checker].live(cur.path);
  const follow = followUpStep(g, cur.unit);
  const carrier: Step[] = follow ? [{ ...(live ?? command('systemctl', ['is-active', '--quiet', '--', g.follow_up!.unit], { okCodes: [0, 1, 2, 3, 4] })), noUndo: undefined, undo: follow }] : [];
  return [
    ...carrier,
    write,
    ...(live ? [{ ...live, noUndo: 'changes_nothing' as const }] : []),
    ...(follow ? [{ ...follow, noUndo: 'undone_earlier' as const }] : []),
  ];
}

function editPreview(kind: EditKind, cur: EditState): { summary: string; change: unknown; warnings: string[] } {
  const g = cur.grant.record!;
  const next = 'text' in cur.next ? cur.next.text : null;
  const sizes = kind === 'remove' ? `${cur.text?.length ?? 0} bytes` : kind === 'create' ? `${next?.length ?? 0} bytes` : `${cur.text?.length ?? 0} → ${next?.length ?? 0} bytes`;
  const live = CHECKER[g.checker].live(cur.path);
  const follow = followUpStep(g, cur.unit);
  const stagedLine = kind !== 'remove' && CHECKER[g.checker].staged(cur.path) ? `${CHECKER[g.checker].describe} on a staged copy${CHECKER[g.checker].beforeApproval ? '' : ' once approved'}, before the write` : null;
  const checks = [...(stagedLine ? [stagedLine] : []), ...(live ? [`checked live by ${[live.program, ...live.args].join(' ')} (restored if it fails)`] : [])];
  const verb = { create: 'Create', replace: 'Replace', patch: 'Patch', remove: 'Remove' }[kind];
  return {
    summary: `${verb} ${cur.path} (${sizes}) under grant ${g.name}${checks.length ? `; ${checks.join(', ')}` : ''}${follow ? `; then ${g.follow_up!.verb} ${g.follow_up!.unit}` : ''}`,
    change: { grant: g.name, path: cur.path, edit: kind, checker: g.checker, follow_up: follow ? g.follow_up : null },
    warnings: g.follow_up && !follow ? [`${g.follow_up.unit} is not running: it is not reloaded, and reads the new configuration when it starts`] : [],
  };
}

/**
 * The risk of an edit: the higher of what its grant recorded and what the grant's fields give
 * now (a follow-up unit that runs as root since, a grant written before the rules tightened).
 */
function editRisk(cur: EditState): 'medium' | 'high' {
  const g = cur.grant.record;
  // No grant: the declared Medium, and the check says there is none.
  if (!g) return 'medium';
  if (g.edit_risk === 'high') return 'high';
  return editRiskOf(g.folder, g.checker, cur.unit?.user ?? null);
}

/** What every edit declares alike: its family, risk (the grant's), requester (the grant's account), rollback and files (the one file, read from the state). */
function editAction<P extends { grant: string; path: string }>(d: {
  name: string;
  kind: EditKind;
  description: string;
  params: z.ZodType<P>;
  example: P;
  next: (p: P, text: string | null) => { text: string | null } | { problem: string };
}) {
  const declaration: ActionDeclaration<P, EditState> = {
    name: d.name,
    family: 'files',
    description: d.description,
    // Medium as declared; a grant of a folder outside the Medium allowlist, or checked for access control, makes its edits High.
    risk: 'medium',
    riskFrom: (cur) => editRisk(cur),
    requestedOnlyBy: (cur) => (cur.grant.record ? { uid: cur.grant.record.uid, account: cur.grant.record.account, why: `grant ${cur.grant.record.name} covers ${cur.grant.record.account}'s requests alone` } : null),
    ruleScope: { named: 'grant', free: ['path', 'content', 'diff'] },
    readOnly: false,
    // The follow-up makes the service run with what the edit wrote.
    runsPrograms: true,
    rollback: exact(),
    params: d.params,
    files: [],
    filesFrom: (cur) => [cur.path],
    example: d.example,
    current: (p, host) => readEdit(host, p.grant, p.path, (text) => d.next(p, text)),
    verify: (_p, cur, host) => verifyEdit(host, cur),
    // The file's text is in the diff the mechanism shows; the state shows where it stands.
    shown: (cur) => ({ grant: cur.grant.record, path: cur.path, exists: cur.stat !== null, bytes: cur.stat?.size ?? 0, follow_up_unit: cur.unit ? { active: cur.unit.active, user: cur.unit.user } : null }),
    check: (_p, cur) => {
      refuseEdit(d.kind, cur);
      if (d.kind !== 'remove' && 'text' in cur.next && cur.next.text === cur.text) return unchanged(`${cur.path} already holds exactly this`);
    },
    preview: (_p, cur) => editPreview(d.kind, cur),
    mechanism: (_p, cur) => {
      const g = cur.grant.record!;
      const next = 'text' in cur.next ? cur.next.text : null;
      const write = next === null ? fileDelete(cur.path) : fileWrite(cur.path, next, { mode: NEW_FILE_MODE, owner: { uid: 0, gid: 0 } });
      return editSteps(g, cur, write);
    },
  };
  return action(declaration);
}

export const createGrantedFile = editAction({
  name: 'CreateGrantedFile',
  kind: 'create',
  description: 'Create a configuration file under a grant (GrantConfigEdits), mode 0644 root:root, checked by the grant\'s checker before it takes effect, then the grant\'s unit reloaded; refused if the file exists.',
  params: params({ grant: grantParam, path: pathParam, content: fileText('content') }),
  example: { grant: 'nginx-sites', path: '/etc/nginx/sites-available/app', content: 'server {\n    listen 8080;\n    root /srv/app;\n}\n' },
  next: (p) => ({ text: p.content }),
});

export const replaceGrantedFile = editAction({
  name: 'ReplaceGrantedFile',
  kind: 'replace',
  description: 'Replace the whole text of a configuration file under a grant, keeping its owner and mode; the preview shows the diff; checked before it takes effect, then the grant\'s unit reloaded; any failure restores the exact previous bytes.',
  params: params({ grant: grantParam, path: pathParam, content: fileText('content') }),
  example: { grant: 'nginx-sites', path: '/etc/nginx/sites-available/app', content: 'server {\n    listen 8081;\n    root /srv/app;\n}\n' },
  next: (p) => ({ text: p.content }),
});

export const patchGrantedFile = editAction({
  name: 'PatchGrantedFile',
  kind: 'patch',
  description: 'Apply a unified diff (one file, no fuzz: every context and removed line must be the file\'s exact current line at the stated place) to a configuration file under a grant; checked before it takes effect, then the grant\'s unit reloaded.',
  params: params({ grant: grantParam, path: pathParam, diff: fileText('diff') }),
  example: { grant: 'nginx-sites', path: '/etc/nginx/sites-available/app', diff: '--- a/app\n+++ b/app\n@@ -1,2 +1,2 @@\n server {\n-    listen 8080;\n+    listen 8081;\n' },
  next: (p, text) => (text === null ? { problem: 'the file does not exist' } : patched(text, p.diff)),
});

export const removeGrantedFile = editAction({
  name: 'RemoveGrantedFile',
  kind: 'remove',
  description: 'Remove a configuration file under a grant; checked live after (the service\'s whole configuration), then the grant\'s unit reloaded; a failure puts the exact bytes back.',
  params: params({ grant: grantParam, path: pathParam }),
  example: { grant: 'nginx-sites', path: '/etc/nginx/sites-available/old' },
  next: () => ({ text: null }),
});
