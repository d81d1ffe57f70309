/**
 * The commands that set up and look after a host installation: `install`, `uninstall`,
 * `doctor` (install.ts, uninstall.ts, doctor.ts), and `completion` and `man`, which print
 * what install puts in place (completion.ts, man.ts). Declarations only: each body loads
 * when its command runs (lazy.ts).
 */
import { Command } from 'commander';
import { DEFAULT_CONFIG_DIR, DEFAULT_LOG_DIR, DEFAULT_POLICY_PATH, DEFAULT_STATE_DIR, LOG_DIR_MODE, octal, STATE_DIR_MODE } from '../protocol/defaults.js';
import { AIRLOCK_GROUPS, APPROVER_GROUP, ROLE_GROUPS } from '../protocol/risk.js';
import { lazy } from './lazy.js';

export function adminCommands(): Command[] {
  const install = new Command('install')
    .description('set up this host (root): groups, directories, an example policy, a hardened systemd unit, completions, a man page')
    .option('--no-start', 'do not enable and start the service')
    .option('--store <url>', 'a fleet PostgreSQL database (postgres://OWNER@HOST/DB): create its tables, row-level security and this host\'s role')
    .option('--store-role <name>', 'with --store: this host\'s database role (default airlock_HOSTNAME)')
    .option('--auditor-role <name>', 'with --store: also a role that reads every host\'s rows and writes none')
    .option('--print-sql', 'with --store: print the SQL for a DBA to run as the tables\' owner, and change nothing')
    .option('--json', 'print what was done as JSON')
    .option('--sudo-no-cache <user>', `turn sudo's password cache off for USER (writes /etc/sudoers.d/airlock-no-cache, checked by visudo): an agent running as USER cannot borrow USER's sudo`)
    .addHelpText(
      'after',
      `
Creates the groups ${AIRLOCK_GROUPS.join(', ')}; ${DEFAULT_STATE_DIR} (${octal(STATE_DIR_MODE)}), ${DEFAULT_LOG_DIR} (${octal(LOG_DIR_MODE)}), ${DEFAULT_CONFIG_DIR};
${DEFAULT_POLICY_PATH} (the built-in defaults with commented examples; an existing one is kept);
the systemd unit, a tmpfiles entry, bash, zsh and fish completions and the man page.
Keys are created by the daemon at its first start.
Where sudo caches the password of the person installing, install says so and offers --sudo-no-cache.
Then: add people with \`usermod -aG ${ROLE_GROUPS.dev} NAME\` (agents) and \`usermod -aG ${APPROVER_GROUP},${ROLE_GROUPS.admin} NAME\` (approvers).`,
    )
    .action(lazy(() => import('./install.js'), 'install'));

  const uninstall = new Command('uninstall')
    .description('remove the service, unit, tmpfiles entry, completions and man page (root); --purge also the keys, the log and the groups')
    .option('--purge', 'also delete the database, keys, checkpoints and groups (the audit trail is lost); lists them and asks first')
    .option('-y, --yes', 'with --purge: delete without asking (needed when there is no terminal)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
It leaves ${DEFAULT_CONFIG_DIR} (the policy), this checkout and the /usr/local/bin/airlock link,
and prints the command that removes each. Exit status: 0 done; 2 --purge was not confirmed
(no terminal and no --yes, or not answered y); 3 not root; 10 a removal failed.`,
    )
    .action(lazy(() => import('./uninstall.js'), 'uninstall'));

  const doctor = new Command('doctor')
    .description('check this installation and say what to fix')
    .option('--state-dir <dir>', 'state directory', DEFAULT_STATE_DIR)
    .option('--log-dir <dir>', 'checkpoint directory', DEFAULT_LOG_DIR)
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExit status: 0 when every check passes, 1 when one fails (each failing check says how to fix it).')
    .action(lazy(() => import('./doctor.js'), 'doctor'));

  const completion = new Command('completion')
    .description('print a completion script for bash, zsh or fish (airlock install installs them)')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', '\nTry it in this shell: source <(airlock completion bash)')
    .action(lazy(() => import('./completion.js'), 'completion'));

  const man = new Command('man')
    .description('print the manual page (roff), from the same definitions as --help')
    .addHelpText('after', '\nRead it without installing: airlock man | man -l -')
    .action(lazy(() => import('./man.js'), 'man'));

  return [install, uninstall, doctor, completion, man];
}
