/**
 * The daemon's tree-head publisher as the policy's [audit] section asks for it: the local
 * append-only file always, the local syslog copy (logger) unless turned off, and each
 * remote sink the policy names. Every head is signed twice over the same size: as a C2SP
 * tree head (the Merkle root), and as the hash-chain checkpoint line `audit verify` reads
 * today; both go in the file, the tree head everywhere else.
 *
 * A cosigned head a witness returns is appended to the file, as a tree-head line, so
 * `audit verify` and `audit export` find the witness's evidence beside the log's.
 * The sinks are built at start: a change of [audit] takes effect at the next start.
 */
import { AirlockError } from '../../protocol/errors.js';
import { formatCheckpointLine, signCheckpoint } from '../../audit/checkpoint.js';
import type { SigningKey } from '../../audit/keys.js';
import { cosignatureValid, signTreeHead, treeHeadLine } from '../../audit/note.js';
import type { AuditSettings } from '../../policy/audit-sinks.js';
import { submitToWitness } from '../../witness/client.js';
import { FileSink } from './file.js';
import { LoggerSink } from './logger.js';
import { PostgresSink } from './postgres.js';
import { TreeHeadPublisher } from './publisher.js';
import type { Sink, TreeHead } from './sink.js';
import { SyslogSink } from './syslog.js';
import { WitnessSink } from './witness.js';

/** What the publisher needs of the log's head: its size, chain hash, and Merkle root (hex). */
export interface RootedHead {
  size: number;
  hash: string;
  root: string;
}

export interface PublisherSetup {
  /** The audit key current when a head is signed (it changes when the key rotates). */
  key: () => SigningKey;
  origin: string;
  /** The local append-only checkpoint file. */
  file: string;
  hostName: string;
  audit: AuditSettings;
  /** Coalescing window after urgent entries (the daemon's --checkpoint-interval; 0 = every append). */
  coalesceMs: number;
  /** The local syslog copy through /usr/bin/logger (--no-syslog turns it off). */
  localSyslog: boolean;
  /** Consistency proofs from the store's Merkle nodes, for witnesses. */
  proof: (oldSize: number, newSize: number) => Promise<Buffer[]>;
  log: (msg: string) => void;
}

export function signHead(key: SigningKey, origin: string, head: RootedHead, now: Date): TreeHead {
  const note = signTreeHead(key, origin, head.size, Buffer.from(head.root, 'hex'), now);
  return { size: head.size, root: head.root, note, line: treeHeadLine(note), legacy: formatCheckpointLine(signCheckpoint(key, origin, head.size, head.hash, now)) };
}

export function buildPublisher(s: PublisherSetup): TreeHeadPublisher<RootedHead> & { file: FileSink } {
  const file = new FileSink(s.file);
  const sinks: Sink[] = [file];
  if (s.localSyslog) sinks.push(new LoggerSink());
  const a = s.audit;
  if (a.syslog) {
    try {
      sinks.push(new SyslogSink({ target: a.syslog, ...(a.syslogCa ? { caFile: a.syslogCa } : {}), hostname: s.hostName, log: s.log }));
    } catch (e) {
      // Fail closed at start: a collector whose certificate cannot be checked gets nothing, and the operator hears it now.
      throw new AirlockError('validation', 'syslog_ca_unreadable', `cannot read [audit] syslog_ca ${a.syslogCa}: ${(e as Error).message}`, 'fix the path in the policy, or remove syslog_ca to check the collector against the system CAs');
    }
  }
  for (const w of a.witnesses) {
    sinks.push(
      new WitnessSink({
        url: w.url,
        submit: submitToWitness,
        proof: s.proof,
        verifyCosigned: (note) => cosignatureValid(note, w.name, w.publicRaw) !== null,
        onCosigned: (note) => file.append([treeHeadLine(note)]),
      }),
    );
  }
  if (a.postgres) sinks.push(new PostgresSink({ url: a.postgres, origin: s.origin }));
  // The file sink is also what the archiver trims after each segment (archiver.ts).
  return Object.assign(
    new TreeHeadPublisher<RootedHead>({
      sign: (head, now) => signHead(s.key(), s.origin, head, now),
      sinks,
      coalesceMs: s.coalesceMs,
      scheduleMs: a.checkpointIntervalSeconds * 1000,
      log: s.log,
    }),
    { file },
  );
}
