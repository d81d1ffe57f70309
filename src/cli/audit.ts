/**
 * `airlock audit`: verify the log with the public key alone (from the daemon, a database or a
 * bundle), write the key file, export the log to one file, show checkpoints. main.ts loads this
 * file to declare the commands: their code (audit-run.ts: SQLite, the verifier, the client) is
 * loaded when one runs.
 */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { DEFAULT_LOG_DIR, DEFAULT_STATE_DIR, stateFiles } from '../protocol/defaults.js';
import { lazy } from './lazy.js';
import { c, printJson, reportError } from './ui.js';

const defaults = stateFiles(DEFAULT_STATE_DIR, DEFAULT_LOG_DIR);

export function auditCommand(): Command {
  const audit = new Command('audit').description('check the signed audit log with the public key alone: through the daemon (any role), or a database or bundle with no daemon');

  audit
    .command('verify')
    .description('verify every entry, the chain and the latest checkpoint: from the daemon (any role), a database, or a bundle')
    .requiredOption('--pubkey <file>', 'the audit public key (from `airlock audit pubkey --out FILE`)')
    .option('--db <path>', `read the log from this SQLite database or a copy of it (with its -wal file), e.g. ${defaults.db} as root, or a PostgreSQL store (postgres://...); default: ask the daemon`)
    .option('--bundle <file>', 'read the log from a bundle written by `airlock audit export`')
    .option('--all-hosts', 'with --db postgres://...: verify every host\'s log in the database, each with the key its origin names (--pubkey: one key per line)')
    .option('--checkpoints <file>', 'a checkpoint file, or a syslog export with airlock-checkpoint lines, read as well (when it exists)', defaults.checkpoints)
    .option('--origin <origin>', 'count only checkpoints naming this log (HOST/airlock/KEYID, as the daemon logs at start)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', '\nExit status: 0 intact, 1 broken (names the first broken entry and why), 2 cannot verify.\nWith --all-hosts: 0 when every host is intact, 1 when any is broken, 2 when any cannot be verified and none is broken.')
    .action(lazy(() => import('./audit-run.js'), 'verify'));

  audit
    .command('pubkey')
    .description('print the audit public key, or write it to a file for `audit verify --pubkey`')
    .option('--out <file>', 'write the key file here and say its key id (refuses to replace a different key)')
    .option('--force', 'with --out: replace a file that holds a different key')
    .option('--state-dir <dir>', 'read it from this state directory instead of asking the daemon')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./audit-run.js'), 'pubkey'));

  audit
    .command('export')
    .description('write the signed log and its checkpoints to one bundle file that `audit verify --bundle` checks anywhere')
    .requiredOption('--out <file>', 'the bundle file to write')
    .option('--db <path>', 'read a database this account can read instead of asking the daemon')
    .option('--checkpoints <file>', 'with --db: the checkpoint file to include', defaults.checkpoints)
    .option('--force', 'replace an existing file')
    .option('--json', 'print what was written as JSON')
    .action(lazy(() => import('./audit-run.js'), 'exportLog'));

  audit
    .command('checkpoint')
    .description('show the latest signed checkpoint in the sink file, checked against the public key')
    .requiredOption('--pubkey <file>', 'the audit public key')
    .option('--checkpoints <file>', 'the checkpoint file', defaults.checkpoints)
    .option('--origin <origin>', 'count only checkpoints naming this log (HOST/airlock/KEYID)')
    .option('--json', 'print JSON')
    .action(async (o) => {
      try {
        const [{ parseCheckpoints }, { parsePublicKey, publicKeyFromRaw }] = await Promise.all([import('../audit/checkpoint.js'), import('../audit/keys.js')]);
        const parsed = parseCheckpoints(readFileSync(o.checkpoints, 'utf8'), publicKeyFromRaw(parsePublicKey(readFileSync(o.pubkey, 'utf8'))), o.origin === undefined ? {} : { origin: o.origin });
        const good = parsed.flatMap((p) => (p.ok ? [p.value] : []));
        const bad = parsed.filter((p) => !p.ok);
        const latest = good.reduce<(typeof good)[number] | null>((a, b) => (a === null || b.checkpoint.size > a.checkpoint.size ? b : a), null);
        if (o.json) return void printJson({ latest, valid: good.length, invalid: bad.length });
        if (!latest) process.stdout.write('no checkpoint yet\n');
        else process.stdout.write(`latest checkpoint of ${latest.checkpoint.origin}: size ${latest.checkpoint.size}, head ${latest.checkpoint.head_hash.slice(0, 16)}…, at ${latest.checkpoint.ts} (${good.length} valid${bad.length ? `, ${c.red(`${bad.length} invalid`)}` : ''})\n`);
        process.exitCode = bad.length ? 1 : 0;
      } catch (e) {
        process.exitCode = 2;
        reportErrorAs2(e, o.json);
      }
    });
  return audit;
}

/** `audit verify` and `audit checkpoint` exit 2 for "cannot verify", whatever the error's category. */
function reportErrorAs2(e: unknown, json: boolean): void {
  reportError(e, Boolean(json));
  process.exitCode = 2;
}
