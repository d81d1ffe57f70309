/**
 * `airlock grant`: a person lets an account (the agent's) propose edits to the files under one
 * configuration folder for a while, each edit checked by the service's own checker and followed
 * by a reload; `airlock grant revoke NAME` ends one; `airlock grants` lists them. A grant is the
 * High change GrantConfigEdits: previewed, approved by a person with their factor, signed.
 * Declarations here; the bodies (grant-run.ts) load when they run.
 */
import { Command } from 'commander';
import { command } from './lazy.js';

const HELP = `
A grant lets one account propose edits under one folder, for at most 30 days:

  airlock grant nginx-sites --account agent --folder /etc/nginx/sites-available \\
      --check nginx --reload nginx.service --for 8h

The agent then proposes CreateGrantedFile, ReplaceGrantedFile, PatchGrantedFile (a unified
diff against the file's exact current text) or RemoveGrantedFile with grant=nginx-sites. Each
edit's preview shows the diff; the checker runs on a staged copy where it can (a YAML or JSON
parser, visudo -cf, sshd -t -f, systemd-analyze verify, named-checkconf, nginx -t on the site
alone), and live after the write where the service checks only its whole configuration
(nginx -t, apache2ctl configtest, postfix check): a failing check restores the exact previous
bytes. Then the unit is reloaded. Links, hard links, executables and anything outside the
folder are refused.

Edits are High unless the grant is of an application's files under /srv or /opt, checked by
one of the daemon's own parsers (json, yaml, toml, ini), with a follow-up unit that runs as an
account of its own (User=): then they are Medium, and a policy rule naming the grant may
approve them. A web server's edits are High (its master reads its configuration as root).

  [[rule]]
  id = "app-config"
  action = "PatchGrantedFile"
  params = { grant = "app-config" }

Checkers: nginx, apache, sshd, sudoers, named, systemd-unit, postfix, json, yaml, toml, ini.

  airlock grants                         list them (expired ones are marked)
  airlock grant revoke nginx-sites       end one now (a High change: your factor)

Exit status: 0 done; 1 failed; 3 refused; 5 invalid (a folder that cannot be granted, a time
over 30 days); 7 the daemon is unreachable.`;

const body = () => import('./grant-run.js');

export function grantCommand(): Command {
  const grant = new Command('grant')
    .description('let an account propose checked edits to the files under one configuration folder, for a time')
    .argument('<name>', 'the grant\'s name (lower-case letters, digits and -), e.g. nginx-sites')
    .option('--account <user>', 'the account whose requests may edit (the agent\'s); required')
    .option('--folder <path>', 'the folder, e.g. /etc/nginx/sites-available; required')
    .option('--check <checker>', 'required: what checks each edit: nginx, apache, sshd, sudoers, named, systemd-unit, postfix, json, yaml, toml, ini')
    .option('--reload <unit>', 'reload this unit after each edit')
    .option('--restart <unit>', 'restart this unit after each edit instead')
    .option('--for <duration>', 'how long: 30m, 8h, 7d (at most 30d)', '8h')
    .option('--until <time>', 'or until this UTC time, e.g. 2026-12-08T18:00:00Z')
    .option('--json', 'print {preview, result} as JSON')
    .addHelpText('after', HELP)
    .action(command(async (name: string, o: Record<string, string | boolean | undefined>, cmd: Command) => (await body()).grant(name, o, cmd)));
  // Options of `grant` are checked in its body, not by commander: a required option of the parent is asked of `grant revoke` too.
  grant
    .command('revoke')
    .description('end a grant now: the next edit under it is refused')
    .argument('<name>', 'the grant\'s name, as `airlock grants` lists it')
    .option('--json', 'print {preview, result} as JSON')
    .action(command(async (name: string, _o: unknown, cmd: Command) => (await body()).revoke(name, cmd)));
  return grant;
}

export function grantsCommand(): Command {
  return new Command('grants')
    .description('list the grants for configuration edits: who may edit under which folder, checked how, until when')
    .option('--json', 'print {grants: [...]} as JSON')
    .addHelpText('after', HELP)
    .action(command(async (o: { json?: boolean }, cmd: Command) => (await body()).list(Boolean(o.json), cmd)));
}
