/**
 * `airlock fleet approve HOST:TX...`: a person approves a fleet plan, one transaction on each of
 * many hosts, with ONE passkey assertion (approve.fleet, src/daemon/verbs/approve-fleet.ts).
 * Run at the workstation by the person, whose account is in airlock-fleet:
 * 1. each host's transaction and passkey settings, fetched through the relay at once (eachHost);
 *    a host whose transaction is not pending, or whose preview does not match its digest, is
 *    refused by name (`--skip-unready` leaves it out), and hosts of different RP IDs are refused;
 * 2. the hosts side by side: each one's summary, risk and match code, the change most of them
 *    make, and each host whose change differs, with the lines that differ (fleet-diff.ts);
 * 3. the entries {host, tx, preview_digest, expires_at} (the deadline each host stored, what a
 *    single approval signs too) and fleetChallenge over them;
 * 4. one local page (fleet-approve-page.ts) where the browser asks the passkey for the assertion;
 * 5. approve.fleet {entries, assertion} to every host through the relay, each host's answer its own.
 */
import type { Command } from 'commander';
import { changeOf, fleetDifferences } from '../client/fleet-diff.js';
import { eachHost, type HostAnswer } from '../client/fleet.js';
import { AirlockError, type WireError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { livePreview } from '../protocol/compacted.js';
import { matchCode } from '../protocol/match-code.js';
import type { PreviewEnvelope, TransactionDetail } from '../protocol/messages.js';
import { fleetChallenge, FLEET_HOST, MAX_FLEET_HOSTS, type FleetEntry } from '../protocol/passkey.js';
import { parseListen } from '../console/listen-address.js';
import { serveFleetPage, type PageAnswer } from './fleet-approve-page.js';
import { withHost } from './connect.js';
import { previewDigestMatches } from './render.js';
import { c, printJson } from './ui.js';

const TX_ID = /^tx_[0-9a-f]{24}$/;
export const DEFAULT_FLEET_LISTEN = '127.0.0.1:7443';

interface Ready {
  tx: TransactionDetail;
  preview: PreviewEnvelope;
  rpId: string;
  origins: string[];
}

/** `HOST:TX` words, checked: a host name the relay could know, a transaction id, each host once. */
export function parseTargets(words: readonly string[]): Array<{ host: string; tx: string }> {
  const targets = words.map((w) => {
    const at = w.lastIndexOf(':');
    const host = w.slice(0, at);
    const tx = w.slice(at + 1);
    if (at < 1 || !FLEET_HOST.test(host) || !TX_ID.test(tx)) throw new AirlockError('validation', 'bad_fleet', `${JSON.stringify(w)} is not HOST:TRANSACTION`, 'for example web1:tx_9071371feef48255f7a09c7d (the names `airlock hosts` lists)');
    return { host, tx };
  });
  if (targets.length === 0 || targets.length > MAX_FLEET_HOSTS) throw new AirlockError('validation', 'bad_fleet', `name 1 to ${MAX_FLEET_HOSTS} hosts`);
  const seen = new Set<string>();
  for (const t of targets) {
    if (seen.has(t.host)) throw new AirlockError('validation', 'bad_fleet', `host ${t.host} is named twice: a host has one transaction in a fleet plan`, 'make the changes of one host one plan (airlock preview with several steps)');
    seen.add(t.host);
  }
  return targets;
}

/** A host's transaction, ready to be signed for: pending, its preview matching its digest; and its passkey settings. */
async function fetchReady(host: string, id: string): Promise<Ready> {
  return withHost(host, async (cl) => {
    const tx = await cl.transaction(id);
    const preview = livePreview(tx);
    if (!previewDigestMatches(preview)) throw new AirlockError('integrity', 'preview_digest', `the preview ${host} returned does not match its own digest; refusing to show or sign it`);
    if (tx.state !== 'Previewed') throw new AirlockError('stale_approval', 'not_pending', `${id} is ${tx.state}, not waiting for approval`);
    const policy = await cl.call('policy.show');
    return { tx, preview, rpId: policy.passkeys.rp_id, origins: policy.passkeys.origins };
  });
}

const t = (s: unknown) => escapeText(String(s), 'line');
const why = (e: WireError) => `${t(e.category)}/${t(e.code)}: ${t(e.message)}${e.hint ? ` (${t(e.hint)})` : ''}`;

/** The hosts side by side (written to stderr: stdout is each host's answer). */
function showPlan(ready: Array<{ host: string } & Ready>): void {
  const out: string[] = [c.bold(`Fleet plan: ${ready.length} host${ready.length === 1 ? '' : 's'}, one passkey assertion`), ''];
  const width = Math.max(...ready.map((r) => r.host.length));
  for (const r of ready) out.push(`  ${c.bold(t(r.host).padEnd(width))}  ${t(r.tx.transaction_id)}  ${t(r.preview.risk)} risk  match code ${c.bold(matchCode(r.preview.preview_digest))}  ${t(r.preview.summary)}`);
  const d = fleetDifferences(ready.map((r) => ({ host: r.host, lines: changeOf(r.preview) })));
  out.push('', `  ${c.bold('the change')} on ${d.same.length} of ${ready.length} (${d.same.map(t).join(', ')}):`, ...d.usual.map((l) => `    ${l}`));
  for (const x of d.differ) {
    out.push('', `  ${c.yellow(`${t(x.host)} differs:`)}`, ...x.missing.map((l) => `    ${c.red(`- ${l}`)}`), ...x.extra.map((l) => `    ${c.green(`+ ${l}`)}`));
  }
  if (d.differ.length === 0) out.push('', `  ${c.green('every host makes the same change')}`);
  process.stderr.write(out.join('\n') + '\n\n');
}

/** One host's answer to approve.fleet, as a line. */
function answerLine(a: HostAnswer<Record<string, unknown>>): string {
  if (!a.ok) return `refused: ${why(a.error)}`;
  const v = a.value as { approved_by: string; recorded?: true; approvals?: { have: number; needed: number } };
  if (v.recorded) return `approval recorded (${v.approvals?.have} of ${v.approvals?.needed}) by ${t(v.approved_by)}: another approver must approve`;
  return `approved by ${t(v.approved_by)}`;
}

export async function fleetApprove(words: string[], o: { listen?: string; json?: boolean; skipUnready?: boolean }, _cmd: Command): Promise<number> {
  const targets = parseTargets(words);
  const listen = parseListen(o.listen ?? DEFAULT_FLEET_LISTEN);
  const origin = `http://localhost:${listen.port}`;
  const err = process.stderr;

  // 1. Each host's transaction and passkey settings, at once.
  const fetched = await eachHost(targets.map((x) => x.host), (host) => fetchReady(host, targets.find((x) => x.host === host)!.tx));
  const unready = fetched.filter((a): a is Extract<typeof a, { ok: false }> => !a.ok);
  for (const a of unready) err.write(`${c.red(t(a.host))}: ${o.skipUnready ? 'left out' : 'not ready'}: ${why(a.error)}\n`);
  if (unready.length > 0 && !o.skipUnready) {
    // The first host's reason decides the exit code (3, 4, 7...): each host's is on its line above.
    const first = unready[0]!.error;
    throw new AirlockError(first.category, first.code, `${unready.length} of ${targets.length} hosts not ready, ${unready[0]!.host} first: ${first.message}`, 'look at each host\'s line; --skip-unready approves the others without them');
  }
  const ready = fetched.flatMap((a) => (a.ok ? [{ host: a.host, ...a.value }] : []));
  if (ready.length === 0) throw new AirlockError('validation', 'bad_fleet', 'no host of the plan is ready to approve', 'look at each host\'s line above');
  const rpIds = [...new Set(ready.map((r) => r.rpId))];
  if (rpIds.length > 1) throw new AirlockError('validation', 'rp_id_mismatch', `the hosts use different passkey RP IDs (${ready.map((r) => `${r.host}: ${r.rpId}`).map(t).join(', ')}): one passkey cannot sign for all`, 'give the hosts of one fleet the same [passkeys] rp_id and origins, or approve each host on its own (`airlock approve` there)');
  const foreign = ready.filter((r) => !r.origins.includes(origin));
  if (foreign.length > 0) throw new AirlockError('validation', 'bad_origin', `${origin} is not among the [passkeys] origins of ${foreign.map((r) => t(r.host)).join(', ')}: a passkey made there would be refused`, `use --listen 127.0.0.1:PORT where http://localhost:PORT is one of those origins (by default ${DEFAULT_FLEET_LISTEN})`);

  // 2. Side by side; 3. the entries and the one challenge.
  showPlan(ready);
  const entries: FleetEntry[] = ready.map((r) => ({ host: r.host, tx: r.tx.transaction_id, preview_digest: r.preview.preview_digest, expires_at: Date.parse(r.tx.expires_at) }));
  const challenge = fleetChallenge(entries);
  const deadline = Math.min(...entries.map((e) => e.expires_at));

  // 4. The page, for one assertion.
  const page = await serveFleetPage(listen, { challenge, rp_id: rpIds[0]!, hosts: ready.map((r) => ({ host: r.host, tx: r.tx.transaction_id, risk: r.preview.risk, match_code: matchCode(r.preview.preview_digest), summary: r.preview.summary })) }, deadline);
  try {
    err.write(`Open this page in the browser where your passkey lives, on this machine (or through \`ssh -L ${listen.port}:127.0.0.1:${listen.port}\`):\n\n  ${c.bold(page.url)}\n\n`);
    err.write(`It lists the same hosts and match codes; approve there only if they are. Waiting until ${new Date(deadline).toISOString()} (Ctrl-C stops; nothing is approved).\n`);
    const assertion = await page.assertion;

    // 5. The same list and assertion to every host; each host approves its own entry.
    const answers = await eachHost(entries.map((e) => e.host), (host) => withHost(host, (cl) => cl.callUnchecked('approve.fleet', { entries, assertion }) as Promise<Record<string, unknown>>));
    const approved = answers.filter((a) => a.ok).length;
    const lines: PageAnswer = { approved, hosts: answers.map((a) => ({ host: a.host, line: answerLine(a) })) };
    await page.answer(lines);
    if (o.json) printJson({ challenge, entries, skipped: unready.map((a) => ({ host: a.host, error: a.error })), hosts: answers });
    else for (const l of lines.hosts) process.stdout.write(`${l.line.startsWith('approved') ? c.green(t(l.host)) : c.red(t(l.host))}: ${l.line}\n`);
    return approved === answers.length && unready.length === 0 ? 0 : 1;
  } finally {
    await page.close();
  }
}
