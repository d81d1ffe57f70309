/**
 * What a change of sshd's settings would do to who can log in, said in its preview. Who
 * must keep SSH access, and who a setting shuts out, is decided in ../../lib/guards.ts;
 * none of these is a refusal (a person may mean it), and open sessions stay.
 */
import { shutOutBy, withoutKeys } from '../../lib/guards.js';
import { parseDirective } from './sshd-config.js';
import type { OptionValue, SshdOption } from './sshd-options.js';
import type { SshdState } from './sshd-state.js';

/** Warnings about who can still log in once `lines` (the drop-in after the change) are in force. */
export function lockoutWarnings(cur: SshdState, lines: string[]): string[] {
  const collect = (option: 'AllowUsers' | 'AllowGroups'): string[] | null => {
    const key = option.toLowerCase();
    const mine = lines.map(parseDirective).filter((d) => d!.keyword.toLowerCase() === key).flatMap((d) => d!.args);
    const theirs = cur.view.directives.filter((d) => d.key === key).flatMap((d) => d.args);
    return mine.length + theirs.length ? [...mine, ...theirs] : null;
  };
  const shut = shutOutBy(cur.approvers, collect('AllowUsers'), collect('AllowGroups'));
  if (cur.approvers.length > 0 && shut.length === cur.approvers.length) return [`no Airlock approver (${shut.map((a) => a.name).join(', ')}) would be allowed to log in over SSH: this may lock every approver out`];
  if (shut.length > 0) return [`these Airlock approvers would not be allowed to log in over SSH: ${shut.map((a) => a.name).join(', ')}`];
  return [];
}

export function optionWarnings(option: SshdOption, value: OptionValue, cur: SshdState, lines: string[]): string[] {
  const out: string[] = [];
  if (option === 'PasswordAuthentication' && value === 'no') {
    const keyless = withoutKeys(cur.approvers).map((a) => a.name);
    out.push('people who log in with a password (no key) cannot log in over SSH any more; open sessions stay');
    if (keyless.length) out.push(`these Airlock approvers have no authorized key file and may be locked out: ${keyless.join(', ')}`);
  }
  if (option === 'PubkeyAuthentication' && value === 'no') out.push('people who log in with an SSH key cannot do so any more; open sessions stay');
  if (option === 'PermitRootLogin' && value === 'yes') out.push('PermitRootLogin yes lets root log in with a password over SSH, the first target of password guessing; prohibit-password allows keys only');
  if (option === 'MaxAuthTries' && typeof value === 'number' && value < 3) out.push(`with MaxAuthTries ${value}, someone whose agent offers several keys may be refused before the right one is tried`);
  return [...out, ...lockoutWarnings(cur, lines)];
}
