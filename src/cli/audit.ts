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
    .requiredOption('--pubkey <file>', 'the audit public key, or the key history (from `airlock audit pubkey --out FILE [--history]`); every key in it is trusted; with --all-hosts, the keys of every host')
    .option('--db <path>', `read the log from this SQLite database or a copy of it (with its -wal file), e.g. ${defaults.db} as root, or a PostgreSQL store (postgres://...); default: ask the daemon`)
    .option('--bundle <file>', 'read the log from a bundle written by `airlock audit export`, or one archived segment (.jsonl.gz)')
    .option('--archive <dir>', `walk the whole history: the archived segments in DIR (${defaults.archive} unless the policy's [store] archive_dir says otherwise), then the live log, as one log`)
    .option('--all-hosts', 'with --db postgres://...: verify every host\'s log in the database, each with the key its origin names (--pubkey: one key per line)')
    .option('--checkpoints <file>', 'a checkpoint file, or a syslog export with airlock-checkpoint lines, read as well (when it exists)', defaults.checkpoints)
    .option('--origin <origin>', 'count only checkpoints naming this log (HOST/airlock/KEYID, as the daemon logs at start)')
    .option('--witness <vkey>', "a witness you trust: its verifier key (NAME+HASH+KEY, as `airlock witness key` prints) or a file holding it; heads it cosigned count as evidence (repeatable)", collect, [])
    .option('--proof <file>', 'check a proof file from `audit prove` or `audit consistency` instead of a log (offline)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', '\nExit status: 0 intact, 1 broken (names the first broken entry and why), 2 cannot verify (no signed\ncheckpoint or tree head of this log, a checkpoint file that should be there and is not, an unreadable\nkey, database, bundle or daemon): nothing contradicts the log, but nothing proves it whole.\nOnce segments are archived, the live log is checked from where they end (a signed tree head there\nvouches for it); --archive DIR checks everything from entry 1 (a segment missing from DIR: 2).\nWith --all-hosts: 0 when every host is intact, 1 when any is broken, 2 when any cannot be verified and none is broken.')
    .action(lazy(() => import('./audit-run.js'), 'verify'));

  audit
    .command('tree-head')
    .description("print a signed tree head of the log now (a C2SP tlog-checkpoint note: origin, size, Merkle root, time, the log's signature)")
    .option('--size <n>', 'the head of the first N entries instead of the whole log')
    .option('--pubkey <file>', 'check the head with this key file before printing it (exit 1 when it does not verify)')
    .option('--json', 'print {size, root, note} as JSON')
    .action(lazy(() => import('./audit-proof.js'), 'treeHead'));

  audit
    .command('prove')
    .description("prove that a transaction's entries are in the log: a signed tree head and an RFC 9162 inclusion proof per entry, checked here with your key")
    .argument('<id>', 'the transaction id (tx_...)')
    .requiredOption('--pubkey <file>', 'the audit public key (from `airlock audit pubkey --out FILE`)')
    .option('--out <file>', 'write the proof to this file, for `airlock audit verify --proof FILE` anywhere')
    .option('--force', 'with --out: replace an existing file')
    .option('--json', 'print the proof document (or, with --out, what was written) as JSON')
    .addHelpText('after', '\nExit status: 0 the proof verifies, 1 it does not (nothing is written); any other error exits\nwith the code of its category (5 a bad id or size, 7 no daemon: docs/cli.md).\nExample:\n  airlock audit prove tx_0123456789abcdef01234567 --pubkey audit.pub --out tx.proof\n  airlock audit verify --proof tx.proof --pubkey audit.pub')
    .action(lazy(() => import('./audit-proof.js'), 'prove'));

  audit
    .command('consistency')
    .description('prove that the log of size NEW extends the log of size OLD (nothing before entry OLD+1 changed): two signed tree heads and an RFC 9162 consistency proof')
    .argument('<old>', 'the older tree size (from a tree head you kept)')
    .argument('[new]', 'the newer tree size (default: the log now)')
    .requiredOption('--pubkey <file>', 'the audit public key')
    .option('--out <file>', 'write the proof to this file, for `airlock audit verify --proof FILE` anywhere')
    .option('--force', 'with --out: replace an existing file')
    .option('--json', 'print the proof document (or, with --out, what was written) as JSON')
    .addHelpText('after', '\nExit status: 0 the proof verifies, 1 it does not (nothing is written); any other error exits\nwith the code of its category (5 a bad id or size, 7 no daemon: docs/cli.md).')
    .action(lazy(() => import('./audit-proof.js'), 'consistency'));

  audit
    .command('pubkey')
    .description('print the audit public key, or write it to a file for `audit verify --pubkey`')
    .option('--out <file>', 'write the key file here and say its key id (refuses to replace a different key)')
    .option('--history', 'every audit key the log has had, oldest first (for a log whose key was rotated), not only the current one')
    .option('--force', 'with --out: replace a file that holds a different key')
    .option('--state-dir <dir>', 'read it from this state directory instead of asking the daemon')
    .option('--vkey', "print the log's verifier key (ORIGIN+HASH+KEY) for a witness's config (`airlock witness serve`) instead")
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
    .description('show the latest signed tree head and checkpoint in the sink file, checked against the public key')
    .requiredOption('--pubkey <file>', 'the audit public key')
    .option('--checkpoints <file>', 'the checkpoint file', defaults.checkpoints)
    .option('--origin <origin>', 'count only checkpoints naming this log (HOST/airlock/KEYID)')
    .option('--json', 'print JSON')
    .action(async (o) => {
      try {
        const [{ parseCheckpoints }, { parsePublicKeys, publicKeyFromRaw }, { parseTreeHead, readTreeHeadLines }] = await Promise.all([import('../audit/checkpoint.js'), import('../audit/keys.js'), import('../audit/note.js')]);
        const text = readFileSync(o.checkpoints, 'utf8');
        const keys = parsePublicKeys(readFileSync(o.pubkey, 'utf8'));
        const parsed = parseCheckpoints(text, keys.map(publicKeyFromRaw), o.origin === undefined ? {} : { origin: o.origin });
        const good = parsed.flatMap((p) => (p.ok ? [p.value] : []));
        const heads = readTreeHeadLines(text).map((r) => ('note' in r ? parseTreeHead(r.note, keys, o.origin) : r.reason));
        const goodHeads = heads.flatMap((h) => (typeof h === 'string' ? [] : [h]));
        const bad = [...parsed.filter((p) => !p.ok), ...heads.filter((h) => typeof h === 'string')];
        const latest = good.reduce<(typeof good)[number] | null>((a, b) => (a === null || b.checkpoint.size > a.checkpoint.size ? b : a), null);
        const head = goodHeads.reduce<(typeof goodHeads)[number] | null>((a, b) => (a === null || b.size > a.size ? b : a), null);
        const headOut = head && { origin: head.origin, size: head.size, root: head.root.toString('hex'), time: head.time, key_id: head.logKeyId, cosignatures: head.cosignatures.map((x) => x.name) };
        if (o.json) return void printJson({ latest, latest_tree_head: headOut, valid: good.length + goodHeads.length, invalid: bad.length });
        if (!latest && !head) process.stdout.write('no checkpoint yet\n');
        if (headOut) process.stdout.write(`latest tree head of ${headOut.origin}: size ${headOut.size}, root ${headOut.root.slice(0, 16)}…, signed ${headOut.time} by key ${headOut.key_id}${headOut.cosignatures.length ? `, cosigned by ${headOut.cosignatures.length} (unchecked here: \`audit verify --witness\` checks them)` : ''}\n`);
        if (latest) process.stdout.write(`latest checkpoint of ${latest.checkpoint.origin}: size ${latest.checkpoint.size}, head ${latest.checkpoint.head_hash.slice(0, 16)}…, at ${latest.checkpoint.ts}\n`);
        process.stdout.write(`${good.length + goodHeads.length} valid${bad.length ? `, ${c.red(`${bad.length} invalid`)}` : ''}\n`);
        process.exitCode = bad.length ? 1 : 0;
      } catch (e) {
        process.exitCode = 2;
        reportErrorAs2(e, o.json);
      }
    });
  return audit;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `audit verify` and `audit checkpoint` exit 2 for "cannot verify", whatever the error's category. */
function reportErrorAs2(e: unknown, json: boolean): void {
  reportError(e, Boolean(json));
  process.exitCode = 2;
}
