/**
 * What the sshd actions read before they decide: whether the OpenSSH server is installed,
 * Airlock's drop-in, the configuration in sshd's order and in force (`sshd -T`),
 * ssh.service, and the approvers whose SSH access a change could affect; and the refusals
 * they share.
 */
import { dirname } from 'node:path';
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { approversAmong, type SshLogin } from '../../lib/guards.js';
import { readUnit, type UnitState } from '../../lib/systemd.js';
import { clip } from '../../lib/text.js';
import { parseDirective, parseEffective, readConfigView, SSHD_CONFIG, SSHD_DROPIN, type ConfigView } from './sshd-config.js';

export const SSH_UNIT = 'ssh.service';
/** Debian's ssh.service creates it at start; sshd -t and -T refuse to run without it. */
const SSHD_PRIVSEP_DIR = '/run/sshd';

/** sshd is installed when its configuration is. */
export const sshdInstalled = async (host: Host): Promise<boolean> => (await host.stat(SSHD_CONFIG)) !== null;
/** Whether /run/sshd, without which sshd checks nothing, is missing. */
export const privsepMissing = async (host: Host): Promise<boolean> => (await host.stat(SSHD_PRIVSEP_DIR)) === null;
export const privsepWarning = (missing: boolean) =>
  missing ? [`${SSHD_PRIVSEP_DIR} is missing (ssh.service creates it when it starts): sshd refuses to check its configuration without it; StartService ssh.service first`] : [];

export interface SshdState {
  installed: boolean;
  dropin: { exists: boolean; lines: string[]; hasMatch: boolean };
  view: ConfigView;
  /** `sshd -T` now, or why it failed. */
  effective: Map<string, string[]> | null;
  effectiveError: string;
  /** ssh.service, or null when systemd could not say. */
  unit: UnitState | null;
  /** Airlock approvers (APPROVER_GROUP, src/protocol/risk.ts; the checks are in ../../lib/guards.ts): their groups, and whether they have an authorized key file. */
  approvers: SshLogin[];
}


/** The home-relative AuthorizedKeysFile patterns of `sshd -T`, for one user. */
function keyFilesOf(effective: Map<string, string[]> | null, user: { name: string; home: string }): string[] {
  const patterns = (effective?.get('authorizedkeysfile')?.[0] ?? '.ssh/authorized_keys .ssh/authorized_keys2').split(/\s+/).filter((p) => p && p !== 'none');
  return patterns.map((p) => p.replace(/%h/g, user.home).replace(/%u/g, user.name).replace(/%%/g, '%')).map((p) => (p.startsWith('/') ? p : `${user.home}/${p}`));
}

export async function readSshd(host: Host): Promise<SshdState> {
  const main = await host.stat(SSHD_CONFIG);
  const dropinText = await host.readFile(SSHD_DROPIN);
  const lines = (dropinText ?? '').split('\n').filter((l) => parseDirective(l) !== null).map((l) => l.trim());
  const dropin = { exists: dropinText !== null, lines, hasMatch: lines.some((l) => parseDirective(l)!.keyword.toLowerCase() === 'match') };
  if (!main) return { installed: false, dropin, view: { directives: [], dropinAt: null, dropinConditional: false, unresolved: [] }, effective: null, effectiveError: '', unit: null, approvers: [] };
  const t = await host.run('sshd', ['-T']);
  const effective = t.code === 0 ? parseEffective(t.stdout) : null;
  const unit = await readUnit(host, SSH_UNIT).catch(() => null);
  const users = await host.users();
  const groups = await host.groups();
  const approvers: SshLogin[] = [];
  for (const u of approversAmong(users, groups)) {
    let hasKeys = false;
    for (const f of keyFilesOf(effective, u)) hasKeys ||= /\S/.test((await host.readFile(f).catch(() => null)) ?? '');
    approvers.push({ name: u.name, groups: groups.filter((g) => g.gid === u.gid || g.members.includes(u.name)).map((g) => g.name), hasKeys });
  }
  return {
    installed: true,
    dropin,
    view: await readConfigView(host),
    effective,
    effectiveError: t.code === 0 ? '' : clip(t.stderr.trim().split('\n').pop() ?? '', 200),
    unit,
    approvers,
  };
}

/** Every sshd action refuses when the server is not installed. */
export function refuseWithoutSshd(installed: boolean): void {
  if (!installed) throw new AirlockError('unsupported_platform', 'sshd_missing', `the OpenSSH server is not installed (there is no ${SSHD_CONFIG})`, 'install openssh-server');
}

/** Refusals SetSshdOption and ResetSshdOption share. */
export function refuseUnusable(cur: SshdState): void {
  refuseWithoutSshd(cur.installed);
  if (!cur.effective) {
    // Debian's ssh.service creates /run/sshd and removes it when it stops; sshd -T and -t need it.
    const privsep = /privilege separation directory/.test(cur.effectiveError);
    throw new AirlockError(
      'conflict',
      'sshd_config_invalid',
      `sshd -T fails on the current configuration (${cur.effectiveError || 'no error text'}); Airlock changes it only while sshd accepts it`,
      privsep ? `start ${SSH_UNIT} (StartService): it creates /run/sshd, which sshd needs even to check its configuration` : 'a person fixes the configuration first (sshd -t shows the error)',
    );
  }
  if (cur.view.dropinAt === null || cur.view.dropinConditional) {
    throw new AirlockError(
      'conflict',
      'dropin_not_included',
      `${SSHD_CONFIG} does not include ${SSHD_DROPIN}${cur.view.dropinAt !== null ? ' except inside a Match block' : ''}, so sshd would not apply it to every connection`,
      `a person adds "Include ${dirname(SSHD_DROPIN)}/*.conf" at the top of ${SSHD_CONFIG}`,
    );
  }
  if (cur.dropin.hasMatch) throw new AirlockError('conflict', 'dropin_has_match', `${SSHD_DROPIN} has a Match block (edited by hand?); a line added after it would apply to matching connections only`, 'a person removes the Match block from it');
}

