/**
 * The Debian package's accounts, as a systemd-sysusers entry (/usr/lib/sysusers.d/airlock.conf,
 * applied by its postinst): the same system groups `airlock install` makes with groupadd
 * --system, and the web console's account as ensureConsoleAccount makes it (its own group, in
 * the observer group, no home, no shell).
 */
import { AIRLOCK_GROUPS, ROLE_GROUPS } from '../protocol/risk.js';
import { CONSOLE_USER } from './console-unit.js';

export const SYSUSERS_PATH = '/usr/lib/sysusers.d/airlock.conf';

export function sysusersConf(): string {
  return [
    '# Airlock groups and the web console account (written by the airlock package)',
    ...AIRLOCK_GROUPS.map((g) => `g ${g} -`),
    `u ${CONSOLE_USER} - "Airlock web console" /nonexistent /usr/sbin/nologin`,
    `m ${CONSOLE_USER} ${ROLE_GROUPS.observer}`,
    '',
  ].join('\n');
}
