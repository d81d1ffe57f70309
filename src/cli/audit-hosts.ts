/**
 * `airlock audit verify --db postgres://... [--all-hosts] --pubkey KEYS`: every host's log in a
 * shared PostgreSQL store, each checked with the key its origin names (KEYS holds one public
 * key per line). A log with no key in KEYS cannot be verified; it is never skipped in silence, and
 * with --all-hosts neither is a key in KEYS that signs no log in the database (a log deleted whole).
 * Without --all-hosts, only the log of the first key in KEYS.
 *
 * Exit status: 0 when every host is intact, 1 when any is broken, 2 when any cannot be
 * verified and none is broken (or there is no log to verify).
 */
import type { Command } from 'commander';
import { keyIdOf, parsePublicKeys } from '../audit/keys.js';
import { describeUrl } from '../audit/pg-url.js';
import { postgresSources, type PostgresLogSource } from '../audit/postgres-source.js';
import { verifySource, type CheckpointFile, type SourceReport } from '../audit/source.js';
import type { WitnessKey } from '../audit/verify.js';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { c, printJson, reportError } from './ui.js';

export interface HostReport {
  origin: string;
  log_id: string;
  status: 'intact' | 'broken' | 'cannot_verify';
  /** Why it cannot be verified. */
  reason?: string;
  report?: SourceReport;
}

/** The key id an origin names (HOST/airlock/KEYID), or null. */
const originKeyId = (origin: string) => /\/airlock\/([0-9a-f]{16})$/.exec(origin)?.[1] ?? null;

async function verifyHost(src: PostgresLogSource, keys: Buffer[], checkpointFiles: CheckpointFile[], witnesses: readonly WitnessKey[]): Promise<HostReport> {
  const base = { origin: src.origin, log_id: src.logId };
  const id = originKeyId(src.origin);
  if (id === null || id !== src.logId) return { ...base, status: 'cannot_verify', reason: `its origin names no key id, or not its own log id ${src.logId}` };
  const key = keys.find((k) => keyIdOf(k) === id);
  if (!key) return { ...base, status: 'cannot_verify', reason: `no key in the key file has the key id ${id}` };
  try {
    // Only this host's checkpoints count, from a file that may gather the whole fleet's.
    const report = await verifySource(src, key, { checkpointFiles, witnesses, origin: src.origin });
    return { ...base, status: report.status, ...(report.reason !== undefined ? { reason: report.reason } : {}), report };
  } catch (e) {
    return { ...base, status: 'cannot_verify', reason: (e as Error).message };
  }
}

export async function verifyHosts(
  o: { pubkey: string; db: string; allHosts?: boolean; checkpoints: string; witness: string[]; json?: boolean },
  cmd: Command,
  read: { keyFile: (path: string) => string; witnessKey: (text: string) => WitnessKey },
): Promise<number> {
  const started = process.hrtime.bigint();
  const hosts: HostReport[] = [];
  try {
    const keys = parsePublicKeys(read.keyFile(o.pubkey));
    const witnesses = o.witness.map(read.witnessKey);
    // The default checkpoint file is this machine's: it counts only when named (a syslog export of
    // the fleet, say), and then it must be there. Without one, a host with no witnessed head
    // cannot be verified: nothing says how long its log should be.
    const checkpointFiles: CheckpointFile[] = cmd.getOptionValueSource('checkpoints') === 'default' ? [] : [{ path: o.checkpoints, named: true, required: true }];
    const first = keyIdOf(keys[0]!);
    const sources = (await postgresSources(o.db)).filter((s) => o.allHosts || s.logId === first);
    if (sources.length === 0) throw new AirlockError('validation', 'no_log', o.allHosts ? `the database ${describeUrl(o.db)} holds no log` : `the database ${describeUrl(o.db)} holds no log of the key ${first}`, o.allHosts ? undefined : 'give --all-hosts to verify every host\'s log');
    for (const src of sources) hosts.push(await verifyHost(src, keys, checkpointFiles, witnesses));
    // A whole log deleted (its row and its entries) leaves no source to verify: a key of the file
    // that no host's log was signed with is a host missing, never skipped in silence.
    if (o.allHosts) {
      const used = new Set(hosts.flatMap((h) => [h.log_id, ...(h.report?.keys ?? []).map((k) => k.key_id)]));
      for (const k of keys) {
        const id = keyIdOf(k);
        if (used.has(id)) continue;
        hosts.push({ origin: `(no log of key ${id})`, log_id: id, status: 'cannot_verify', reason: `your key file holds key ${id}, but no log in the database is signed with it: a host's log may have been deleted, or the key is of a host this database does not keep (remove it from the file if so)` });
      }
    }
  } catch (e) {
    reportError(e, Boolean(o.json));
    return 2;
  }
  const broken = hosts.some((h) => h.status === 'broken');
  const unverified = hosts.some((h) => h.status === 'cannot_verify');
  const status = broken ? 'broken' : unverified ? 'cannot_verify' : 'intact';
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (o.json) printJson({ status, hosts, elapsed_ms: Math.round(ms) });
  else {
    for (const h of hosts) {
      const who = escapeText(h.origin);
      if (h.status === 'intact') process.stdout.write(`${c.green('intact')}  ${who}: ${h.report!.entries} entries, head ${h.report!.head_hash.slice(0, 16)}…\n`);
      else if (h.status === 'broken') {
        const fb = h.report!.first_broken!;
        process.stdout.write(`${c.red('BROKEN')}  ${who}: ${fb.seq !== null ? `first broken entry #${fb.seq}: ` : ''}${escapeText(fb.reason)}\n`);
      } else process.stdout.write(`${c.yellow('cannot verify')}  ${who}: ${escapeText(h.reason ?? '')}\n`);
      for (const w of h.report?.warnings ?? []) process.stdout.write(`  ${c.yellow('warning')} ${escapeText(w)}\n`);
    }
    process.stdout.write(c.dim(`${hosts.length} host(s) in ${escapeText(describeUrl(o.db))} (${ms.toFixed(0)} ms)\n`));
  }
  return broken ? 1 : unverified ? 2 : 0;
}
