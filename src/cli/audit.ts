/**
 * `airlock audit`: verify the log offline with the public key alone, export the key, show checkpoints.
 * main.ts loads this file to declare the commands: what they run with (SQLite, the verifier,
 * the client) is imported inside each action, when it runs.
 */
import { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_LOG_DIR, DEFAULT_STATE_DIR, stateFiles } from '../protocol/defaults.js';
import { c, printJson, reportError } from './ui.js';

const defaults = stateFiles(DEFAULT_STATE_DIR, DEFAULT_LOG_DIR);

export function auditCommand(): Command {
  const audit = new Command('audit').description('check the signed audit log (no daemon or private key needed)');

  audit
    .command('verify')
    .description('verify every entry, the chain and the latest checkpoint')
    .requiredOption('--pubkey <file>', 'the audit public key (from `airlock audit pubkey`)')
    .option('--db <path>', 'the SQLite database, or a copy of it', defaults.db)
    .option('--checkpoints <file>', 'the checkpoint file (or a syslog export with airlock-checkpoint lines)', defaults.checkpoints)
    .option('--origin <origin>', 'count only checkpoints naming this log (HOST/airlock/KEYID, as the daemon logs at start)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', '\nExit status: 0 intact, 1 broken (names the first broken entry and why), 2 cannot verify.')
    .action(async (o) => {
      const [{ parsePublicKey }, { readSqliteLog }, { verifyLog }] = await Promise.all([import('../audit/keys.js'), import('../audit/log-file.js'), import('../audit/verify.js')]);
      let pub: Buffer;
      try {
        pub = parsePublicKey(readFileSync(o.pubkey, 'utf8'));
        if (!existsSync(o.db)) throw new Error(`no database at ${o.db}`);
      } catch (e) {
        process.exitCode = 2;
        return void reportErrorAs2(e, o.json);
      }
      const cpText = existsSync(o.checkpoints) ? readFileSync(o.checkpoints, 'utf8') : null;
      const started = process.hrtime.bigint();
      let report;
      try {
        report = await verifyLog(readSqliteLog(o.db), pub, cpText, o.origin === undefined ? {} : { origin: o.origin });
      } catch (e) {
        process.exitCode = 2;
        return void reportErrorAs2(e, o.json);
      }
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (o.json) printJson({ ...report, elapsed_ms: Math.round(ms) });
      else {
        if (report.status === 'intact') {
          process.stdout.write(`${c.green('intact')}  ${report.entries} entries, head ${report.head_hash.slice(0, 16)}…${report.checkpoint ? `, consistent with the checkpoint of ${report.checkpoint.ts} (size ${report.checkpoint.size}, ${report.checkpoint.origin})` : ''} ${c.dim(`(${ms.toFixed(0)} ms)`)}\n`);
        } else {
          const fb = report.first_broken!;
          process.stdout.write(`${c.red('BROKEN')}  ${fb.seq !== null ? `first broken entry: #${fb.seq}: ` : ''}${fb.reason}\n  ${report.entries} entries verified before it\n`);
        }
        for (const w of report.warnings) process.stdout.write(`${c.yellow('warning')} ${w}\n`);
      }
      process.exitCode = report.status === 'intact' ? 0 : 1;
    });

  audit
    .command('pubkey')
    .description('print the audit public key (give it to auditors)')
    .option('--state-dir <dir>', 'read it from this state directory instead of asking the daemon')
    .action(async (o, cmd: Command) => {
      try {
        if (o.stateDir) return void process.stdout.write(readFileSync(stateFiles(o.stateDir, DEFAULT_LOG_DIR).publicKey, 'utf8'));
        const { AirlockClient, socketPath } = await import('../client/client.js');
        const cl = await AirlockClient.connect(socketPath(cmd.optsWithGlobals().socket));
        try {
          process.stdout.write((await cl.call('audit.pubkey')).public_key + '\n');
        } finally {
          cl.close();
        }
      } catch (e) {
        process.exitCode = reportError(e, false);
      }
    });

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
