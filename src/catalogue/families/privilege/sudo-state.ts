/** sudo's own state as the privilege actions need it: installed, reading its drop-ins, its policy valid now. */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';

export const SUDOERS = '/etc/sudoers';
export const SUDOERS_D = '/etc/sudoers.d';

export interface SudoState {
  /** /etc/sudoers exists. */
  installed: boolean;
  /** /etc/sudoers has `@includedir /etc/sudoers.d` (or the old `#includedir`). */
  readsDropins: boolean;
  /** `visudo -c` passes on the whole policy as it is now. */
  valid: boolean;
}

export async function readSudo(host: Host, validate: boolean): Promise<SudoState> {
  const main = await host.readFile(SUDOERS);
  if (main === null) return { installed: false, readsDropins: false, valid: false };
  const readsDropins = main.split('\n').some((l) => /^\s*[@#]includedir\s+\/etc\/sudoers\.d\/?\s*$/.test(l));
  const valid = validate ? (await host.run('visudo', ['--check', '--quiet'])).code === 0 : true;
  return { installed: true, readsDropins, valid };
}

export function refuseWithoutSudo(s: SudoState): void {
  if (!s.installed) throw new AirlockError('unsupported_platform', 'sudo_missing', `sudo is not installed on this host (there is no ${SUDOERS})`, 'install the sudo package');
}

/** The refusals every change shares: sudo is there and its policy is valid now (so a failing check afterwards is ours). */
export function refuseUnchangeable(s: SudoState): void {
  refuseWithoutSudo(s);
  if (!s.valid) {
    throw new AirlockError('conflict', 'sudoers_invalid', 'visudo -c already reports an error in the sudo policy; Airlock changes it only while it is valid', 'a person fixes it with visudo, from a console');
  }
}
