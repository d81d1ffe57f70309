/**
 * A grant for configuration edits: a person lets one account propose edits to the files under
 * one folder, until a time, each edit checked by the checker the person chose and followed by a
 * reload the person chose. The grant is a file, /etc/airlock/grants/NAME.json (0644 root:root),
 * written by GrantConfigEdits (a High change: a person approves it with their factor, and the
 * signed log holds it) and removed by RevokeConfigGrant. The edits (./granted-edits.ts) read it
 * again at preview and at execution: a grant revoked, expired or altered since stops them.
 *
 * What may be granted is an allowlist: a folder two levels or more under /etc, /srv, /opt or
 * /usr/local/etc, never Airlock's own /etc/airlock. What an edit under it risks is fixed when the
 * grant is made (editRiskOf): Medium only for an application's files under /srv or /opt,
 * checked by the daemon's own parser, whose follow-up unit runs as an account of its own;
 * everything else is High, which a policy rule never approves.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { absolutePath, boundedString, token, unitName, userName } from '../../params.js';
import { CHECKER, CHECKERS, type CheckerName } from '../../lib/config-checkers.js';
import { pathState } from './allowlist.js';

export const GRANTS_DIR = '/etc/airlock/grants';
export const GRANT_FILES = [`${GRANTS_DIR}/*.json`];
export const grantPath = (name: string): string => `${GRANTS_DIR}/${name}.json`;
/** A grant lasts at most this long: a standing permission is reviewed by a person again within a month. */
export const MAX_GRANT_DAYS = 30;
export const MAX_GRANT_MS = MAX_GRANT_DAYS * 24 * 3_600_000;
/** A grant file is small; anything larger is not one Airlock wrote. */
const MAX_GRANT_BYTES = 4096;

/** A grant's name: what a policy rule and every edit name it by. */
/** A grant's name: what GrantConfigEdits takes, and what the console's URL of one may hold. */
export const GRANT_NAME = /^[a-z0-9][a-z0-9-]{0,47}$/;
export const grantName = token(GRANT_NAME, 'grant name', 48, 'a grant name (lower-case letters, digits and -, up to 48 characters, e.g. nginx-sites)');

/** Where a grant may be made: under these, at least one folder deep (never one of them whole). */
export const GRANTABLE_ROOTS = ['/etc', '/srv', '/opt', '/usr/local/etc'] as const;
/** Never granted, nor anything under it: the daemon's own policy and grants. */
export const NEVER_GRANTED = '/etc/airlock';

/**
 * Folders whose edits may be Medium: applications' own files. Medium needs more than the folder
 * (editRiskOf): the daemon's own parser as the checker (a service's checker runs as root on the
 * text: nginx -t loads what `ssl_certificate_key engine:...` names), and a follow-up unit that
 * runs as an account of its own (`User=`, not root), so what the configuration names is opened
 * or run without root's rights. Not /etc/nginx, /etc/apache2, /etc/postgresql or /etc/mysql:
 * their masters read configuration as root or hold access control (pg_hba.conf), and root's
 * tools read theirs (mysql's [client]). Anything else is High: a person reads each diff.
 */
export const EDIT_RISK_MEDIUM = ['/srv', '/opt'] as const;

export const FOLLOW_UPS = ['reload', 'restart'] as const;

/** One path segment of a file or folder under a grant: no hidden files, no shell or glob characters. */
export const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._@+-]{0,127}$/;

/** A folder as a person names it for a grant. */
export const grantFolder = absolutePath.refine((p) => p.split('/').slice(1).every((s) => SEGMENT.test(s)), 'each folder name is letters, digits and . _ @ + - (not starting with .)');

/** A UTC time as a grant's end is written: 2026-12-08T18:00:00Z (milliseconds allowed). */
export const utcTime = boundedString(32, 'a time is at most 32 characters')
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/, 'a UTC time, e.g. 2026-12-08T18:00:00Z')
  .refine((t) => !Number.isNaN(Date.parse(t)), 'not a real date and time');

export const grantRecord = z.strictObject({
  version: z.literal(1),
  name: grantName,
  /** The account whose requests it covers, and its uid when granted: an account re-made with another uid is not the one granted. */
  account: userName,
  uid: z.number().int().min(1),
  folder: grantFolder,
  checker: z.enum(CHECKERS),
  follow_up: z.strictObject({ verb: z.enum(FOLLOW_UPS), unit: unitName }).nullable(),
  edit_risk: z.enum(['medium', 'high']),
  expires_at: utcTime,
});
export type GrantRecord = z.infer<typeof grantRecord>;

/** The grant file's exact text: one line of JSON, keys in a fixed order. */
export const grantText = (g: GrantRecord): string =>
  JSON.stringify({ version: g.version, name: g.name, account: g.account, uid: g.uid, folder: g.folder, checker: g.checker, follow_up: g.follow_up, edit_risk: g.edit_risk, expires_at: g.expires_at }) + '\n';

/** Why `folder` may not be granted, or null. */
export function grantableProblem(folder: string): string | null {
  if (folder === NEVER_GRANTED || folder.startsWith(`${NEVER_GRANTED}/`) || `${NEVER_GRANTED}/`.startsWith(`${folder}/`)) return `${folder} holds or is inside ${NEVER_GRANTED}, Airlock's own policy and grants`;
  const root = GRANTABLE_ROOTS.find((r) => folder.startsWith(`${r}/`));
  if (!root) return `${folder} is not under ${GRANTABLE_ROOTS.join(', ')}: a grant covers one service's or application's configuration folder`;
  return null;
}

/**
 * The risk of an edit under a grant of `folder` checked by `checker` and followed by a unit that
 * runs as `followUpUser` (null: no follow-up): what the grant records. The edits take the higher
 * of the recorded risk and this one, computed again from the grant's own fields.
 */
export function editRiskOf(folder: string, checker: CheckerName, followUpUser: string | null): 'medium' | 'high' {
  const inFolder = EDIT_RISK_MEDIUM.some((r) => folder === r || folder.startsWith(`${r}/`));
  const ownAccount = followUpUser !== null && followUpUser !== '' && followUpUser !== 'root' && followUpUser !== '0';
  return inFolder && CHECKER[checker].parser !== null && CHECKER[checker].risk !== 'high' && ownAccount ? 'medium' : 'high';
}

export interface GrantState {
  name: string;
  /** The grant as recorded, or null when there is none (or it is not a file Airlock wrote: `problem`). */
  record: GrantRecord | null;
  problem: string | null;
}

/** Reads grant NAME: the file must be root's, writable by root alone, and hold exactly what GrantConfigEdits writes. */
export async function readGrant(host: Host, name: string): Promise<GrantState> {
  const path = grantPath(name);
  const where = await pathState(path, host);
  if (where.link) return { name, record: null, problem: `${where.link} is a symbolic link` };
  const st = where.stat;
  if (!st) return { name, record: null, problem: null };
  if (!st.isFile || st.uid !== 0 || (st.mode & 0o022) !== 0 || st.size > MAX_GRANT_BYTES) return { name, record: null, problem: `${path} is not a grant file Airlock wrote (a root-owned file, writable by root alone, under ${MAX_GRANT_BYTES} bytes)` };
  const text = await host.readFile(path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch {
    return { name, record: null, problem: `${path} is not JSON` };
  }
  const r = grantRecord.safeParse(parsed);
  if (!r.success || r.data.name !== name || grantText(r.data) !== text) return { name, record: null, problem: `${path} does not hold a grant as Airlock writes it` };
  return { name, record: r.data, problem: null };
}

/** The grant in force, or a refusal saying why there is none: missing, altered, expired. */
export function grantInForce(g: GrantState, now: number): GrantRecord {
  if (g.problem) throw new AirlockError('integrity', 'grant_unreadable', `grant ${g.name}: ${g.problem}`, 'a person looks at it; `airlock grants` lists the grants in force');
  if (!g.record) throw new AirlockError('authorization', 'no_such_grant', `there is no grant ${g.name} on this host`, 'a person grants the folder first: `airlock grant --help`');
  if (Date.parse(g.record.expires_at) <= now) throw new AirlockError('authorization', 'grant_expired', `grant ${g.name} expired at ${g.record.expires_at}`, 'a person grants it again if the work goes on: `airlock grant --help`');
  return g.record;
}

export type ListedGrant = GrantRecord & { expired: boolean };

/**
 * ListConfigGrants' output (grep's `FILE.json:LINE`, one grant a line) read back as grants, for
 * every client that shows them (the CLI's `airlock grants`, the console): a line that is not a
 * grant as Airlock writes it is skipped (the edits refuse such a file too).
 */
export function grantsListed(output: readonly string[], now: number): ListedGrant[] {
  const grants: ListedGrant[] = [];
  for (const line of output.join('\n').split('\n')) {
    const at = line.indexOf('.json:');
    if (at < 0) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.slice(at + 6));
    } catch {
      continue;
    }
    const g = grantRecord.safeParse(parsed);
    if (g.success) grants.push({ ...g.data, expired: Date.parse(g.data.expires_at) <= now });
  }
  return grants;
}

/** Why `path` is not a file this grant covers (null: it is): inside its folder, every segment plain. */
export function outsideGrant(g: GrantRecord, path: string): string | null {
  if (!path.startsWith(`${g.folder}/`)) return `${path} is outside ${g.folder}, the folder grant ${g.name} covers`;
  const rest = path.slice(g.folder.length + 1).split('/');
  if (!rest.every((s) => SEGMENT.test(s))) return `${path}: each name under ${g.folder} is letters, digits and . _ @ + - (not starting with .)`;
  if (rest.some((s) => /\.dpkg-(old|new|dist|tmp|bak)$|~$/.test(s))) return `${path} is a backup or package manager's file, not a configuration file`;
  return null;
}
