/**
 * `airlock policy` (check, show, reload) and `airlock inbox` (proposals by unattended principals).
 * main.ts loads this file to declare the commands: the policy parser (which knows the
 * catalogue), the client and the renderers are imported inside each action, when it runs.
 */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { DEFAULT_POLICY_PATH } from '../protocol/defaults.js';
import { c, EXIT, printJson } from './ui.js';
import { command } from './lazy.js';
import { livePreview } from '../protocol/compacted.js';

const connect = () => import('./connect.js');

/** The file's text; none at all is the built-in default policy (''), any other failure to read it an error. */
function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    return '';
  }
}

export function policyCommand(): Command {
  const policy = new Command('policy').description("the human's policy (/etc/airlock/policy.toml): auto-approval rules, raised risks, unattended users");
  policy
    .command('check')
    .description('explain a policy file rule by rule and warn about dangerous rules (reads the file; no daemon needed)')
    .option('--file <path>', 'the policy file', DEFAULT_POLICY_PATH)
    .option('--json', 'print {ok, lines, warnings} or the error as JSON')
    .addHelpText(
      'after',
      `
Exit status: 0 valid (warnings or not), 5 invalid (the daemon would refuse to load it).
The daemon uses a changed file only after \`sudo airlock policy reload\`.

Example policy:
  reads = "auto"                 # non-sensitive reads need no person (the default)
  unattended = ["backup"]        # these users propose; nothing is ever approved for them
  [approval]
  second_factor_from = "high"    # or "medium"
  [risk]
  InstallPackage = "high"        # raise only
  [[rule]]
  id = "restart-web"
  action = "RestartService"
  params = { unit = "nginx.service" }
  cooldown_minutes = 10
  daily_cap = 20
  [masking]
  pseudonyms = ["ip", "email"]   # also "hostname": keyed pseudonyms instead of the values`,
    )
    .action(
      command(async (o) => {
        const { explainPolicy, parsePolicy, PolicyError } = await import('../policy/policy.js');
        const text = readIfThere(o.file);
        try {
          const p = parsePolicy(text, text ? 'file' : 'default');
          const { lines, warnings } = explainPolicy(p);
          if (o.json) return printJson({ ok: true, digest: p.digest, lines, warnings });
          process.stdout.write(lines.map((l) => `${l}\n`).join('') + warnings.map((w) => `${c.yellow('warning')} ${w}\n`).join(''));
        } catch (e) {
          if (!(e instanceof PolicyError)) throw e;
          if (o.json) printJson({ ok: false, error: { category: 'validation', code: 'policy_invalid', message: e.message } });
          else process.stderr.write(`${c.red('invalid')} ${o.file}: ${e.message}\n`);
          return EXIT.validation;
        }
      }),
    );
  policy
    .command('show')
    .description('the policy the daemon is using now: digest, settings, rule ids')
    .option('--json', 'print JSON')
    .action(
      command(async (o, cmd: Command) => {
        const { askAndShow } = await connect();
        await askAndShow(cmd, o.json, (cl) => cl.call('policy.show'), (p) => Object.entries(p).map(([k, v]) => `${c.dim(k.padEnd(19))} ${typeof v === 'string' ? v : JSON.stringify(v)}\n`).join(''));
      }),
    );
  policy
    .command('reload')
    .description('make the daemon re-read the policy file (an admin approver through sudo, with your own code); logged with both digests')
    .option('--json', 'print JSON')
    .action(
      command(async (o, cmd: Command) => {
        const [{ askAndShow }, { withOwnCode }] = await Promise.all([connect(), import('./code-prompt.js')]);
        const hint = 'an admin approver runs `sudo airlock policy reload` in a terminal of their own';
        await askAndShow(
          cmd,
          o.json,
          (cl) => withOwnCode('reloading the policy', hint, (code) => cl.call('policy.reload', code ? { totp_code: code } : {})),
          (r) => (r.old_digest === r.new_digest ? `unchanged ${r.new_digest}\n` : `${c.green('reloaded')} ${r.old_digest} -> ${r.new_digest} (${r.source})\n`),
        );
      }),
    );
  return policy;
}

export function inboxCommand(): Command {
  const inbox = new Command('inbox')
    .description('proposals by unattended principals (cron jobs, monitors): they preview, a person decides')
    .option('--json', 'print JSON')
    .action(
      command(async (o, cmd: Command) => {
        const [{ askAndShow }, { renderHistory }] = await Promise.all([connect(), import('./render.js')]);
        await askAndShow(cmd, o.json, (cl) => cl.call('inbox'), (rows) => (rows.length ? renderHistory(rows) + `\n${c.cyan('next')}  airlock inbox run ID   (re-previews it now, as you, and asks for approval)\n` : 'the inbox is empty\n'));
      }),
    );
  inbox
    .command('run')
    .description('re-preview a proposal against the current state, as you, then approve and execute it (as `airlock run`); the log links it to the proposal')
    .argument('<transaction>')
    .option('--json', 'print JSON')
    .action(
      command(async (id: string, o, cmd: Command) => {
        const [{ withClient }, { runFlow }] = await Promise.all([connect(), import('./run.js')]);
        const r = await withClient(cmd, async (cl) => {
          const t = await cl.transaction(id);
          return runFlow(cl, t.action_name, livePreview(t).params, { json: Boolean(o.json), proposal: id });
        });
        return r.state === 'Succeeded' || r.state === 'NeedsReboot' ? EXIT.ok : EXIT.failed;
      }),
    );
  return inbox;
}
