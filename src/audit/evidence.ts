/**
 * What signed evidence says the log must be, and whether the entries walked match it. The
 * evidence is the checkpoint sinks' text: signed tree heads (C2SP tlog-checkpoint notes, one per
 * `airlock-tree-head` line, some cosigned by witnesses) and the older `airlock-checkpoint` lines
 * (size and chain head hash). verifyLog walks the entries once and hands each one here; this
 * module keeps only what the evidence asks about (the chain hash or the Merkle root at the sizes
 * some checkpoint names), never the whole log, and then judges:
 *
 * - a log shorter than any signed head or checkpoint: the tail was cut (broken);
 * - a log whose root (or chain hash) at a signed size differs: history was rewritten (broken);
 * - two heads of one size with different roots, both signed by the log's key: the log was forked,
 *   one history shown to some and another to others (broken, whatever the entries say);
 * - no valid evidence of this log at all: cannot_verify, never intact.
 *
 * A line that is not validly signed by the log's key, or names another log, is noise (anyone can
 * write into syslog): reported as a warning, never evidence. A witness cosignature counts only
 * for a witness key the auditor gave.
 */
import { parseCheckpoints, CHECKPOINT_TAG, type SignedCheckpoint } from './checkpoint.js';
import { keyIdOf, publicKeyFromRaw } from './keys.js';
import { leafHash, MerkleFrontier } from './merkle.js';
import { cosignatureValid, parseTreeHead, readTreeHeadLines, type TreeHead, type Vkey } from './note.js';

/** Checkpoint text and where it came from ("the daemon's checkpoint file", a path): a warning about a line names both. */
export interface CheckpointEvidence {
  from: string;
  text: string;
}

/** A witness the auditor trusts: its name and cosignature key (parseVkey of its vkey). */
export type WitnessKey = Pick<Vkey, 'name' | 'publicRaw'>;

export interface EvidenceSummary {
  size: number;
  ts: string;
  origin: string;
  /** 'tree_head' for a signed note (with its Merkle root), 'checkpoint' for an older chain-head line. */
  kind: 'tree_head' | 'checkpoint';
  /** Hex Merkle root, for a tree head. */
  root?: string;
  /** The trusted witnesses that cosigned it. */
  witnesses?: string[];
}

export interface Judgement {
  status: 'intact' | 'broken' | 'cannot_verify';
  checkpoint: EvidenceSummary | null;
  /** The largest head a trusted witness cosigned, when any. */
  witnessed: EvidenceSummary | null;
  first_broken?: { seq: number | null; reason: string };
  reason?: string;
  warnings: string[];
}

const TREE_HEAD_TAG = 'airlock-tree-head ';
/** "<host>/airlock/<log id>" (checkpoint.ts checkpointOrigin). */
const ORIGIN = /^[a-z0-9.-]{1,253}\/airlock\/([0-9a-f]{16})$/;

interface Head {
  head: TreeHead;
  witnesses: string[];
  from: string;
}

/**
 * The evidence of one verification. `logKeys`: the log's public keys (raw), any of which may sign
 * its checkpoints; `logId`: the id its origins must name (the key id of its first key).
 */
export class Evidence {
  readonly warnings: string[] = [];
  private readonly legacy: SignedCheckpoint[] = [];
  private readonly heads: Head[] = [];
  /** Sizes the evidence names, each with what the walk saw there. */
  private readonly chainAt = new Map<number, string | null>();
  private readonly rootAt = new Map<number, string | null>();
  private readonly frontier = MerkleFrontier.empty();
  private readonly sources: number;

  constructor(evidence: readonly CheckpointEvidence[], logKeys: readonly Buffer[], logId: string, o: { origin?: string; witnesses?: readonly WitnessKey[] } = {}) {
    this.sources = evidence.length;
    // Older checkpoint lines predate key rotation: they are signed by the log's first key, whose id is the log id.
    const firstKey = logKeys.find((k) => keyIdOf(k) === logId);
    for (const { from, text } of evidence) {
      const where = evidence.length > 1 ? ` of ${from}` : '';
      if (text.includes(CHECKPOINT_TAG)) {
        if (!firstKey) this.warnings.push(`the checkpoint lines${where} are signed by the log's first key ${logId}, which is not among the keys given: not read`);
        else {
          for (const p of parseCheckpoints(text, publicKeyFromRaw(firstKey), o.origin === undefined ? {} : { origin: o.origin })) {
            if (p.ok) this.legacy.push(p.value);
            else this.warnings.push(`checkpoint line ${p.line}${where} ignored: ${p.reason}`);
          }
        }
      }
      if (text.includes(TREE_HEAD_TAG)) this.readHeads(text, where, from, logKeys, logId, o);
    }
    for (const c of this.legacy) this.chainAt.set(c.checkpoint.size, null);
    for (const h of this.heads) this.rootAt.set(h.head.size, null);
  }

  private readHeads(text: string, where: string, from: string, logKeys: readonly Buffer[], logId: string, o: { origin?: string; witnesses?: readonly WitnessKey[] }): void {
    // A syslog export prefixes each line: a tree head counts from its tag to the end of the line.
    const lines = text.split('\n').map((l) => {
      const at = l.indexOf(TREE_HEAD_TAG);
      return at < 0 ? '' : l.slice(at).replace(/\r$/, '');
    });
    for (const r of readTreeHeadLines(lines.join('\n'))) {
      if ('reason' in r) {
        this.warnings.push(`tree head line ${r.line}${where} ignored: ${r.reason}`);
        continue;
      }
      const head = parseTreeHead(r.note, logKeys, o.origin);
      if (typeof head === 'string') {
        this.warnings.push(`tree head line ${r.line}${where} ignored: ${head}`);
        continue;
      }
      const named = ORIGIN.exec(head.origin)?.[1];
      if (named !== logId) {
        this.warnings.push(`tree head line ${r.line}${where} ignored: it names another log (${head.origin}), not log ${logId}`);
        continue;
      }
      const witnesses = (o.witnesses ?? []).filter((w) => cosignatureValid(r.note, w.name, w.publicRaw) !== null).map((w) => w.name);
      this.heads.push({ head, witnesses, from });
    }
  }

  /** Called for each entry in order: its seq, chain hash and stored body. */
  observe(seq: number, chainHash: string, body: string): void {
    this.frontier.append(leafHash(body));
    if (this.chainAt.has(seq)) this.chainAt.set(seq, chainHash);
    if (this.rootAt.has(seq)) this.rootAt.set(seq, this.frontier.root().toString('hex'));
  }

  /** The Merkle root of the entries observed so far. */
  root(): Buffer {
    return this.frontier.root();
  }

  /** The verdict on the length and history of a log of `entries` entries, all of which verified. */
  judge(entries: number): Judgement {
    const warnings = this.warnings;
    const none = { checkpoint: null, witnessed: null, warnings };
    if (this.sources === 0) {
      return { ...none, status: 'cannot_verify', reason: 'no checkpoint was given: nothing signed says how long the log should be, so a cut tail cannot be ruled out (give the checkpoint file with --checkpoints FILE)' };
    }
    if (this.legacy.length === 0 && this.heads.length === 0) {
      return { ...none, status: 'cannot_verify', reason: 'no valid checkpoint or tree head of this log was found: nothing signed says how long the log should be, so a cut tail cannot be ruled out' };
    }
    const summaries = [...this.legacy.map(legacySummary), ...this.heads.map(headSummary)];
    const latest = summaries.reduce((a, b) => (b.size > a.size || (b.size === a.size && b.kind === 'tree_head') ? b : a));
    const witnessedHeads = this.heads.filter((h) => h.witnesses.length > 0).map(headSummary);
    const witnessed = witnessedHeads.length ? witnessedHeads.reduce((a, b) => (b.size > a.size ? b : a)) : null;
    const base = { checkpoint: latest, witnessed, warnings };
    const fork = this.fork();
    if (fork) return { ...base, status: 'broken', first_broken: fork };
    if (entries < latest.size) {
      const by = latest.witnesses?.length ? `, cosigned by ${latest.witnesses.join(', ')},` : '';
      return { ...base, status: 'broken', first_broken: { seq: entries + 1, reason: `log has ${entries} entries but the ${latest.kind === 'tree_head' ? 'tree head' : 'checkpoint'} of ${latest.ts}${by} covers ${latest.size}: the tail was cut` } };
    }
    for (const c of this.legacy) {
      if (c.checkpoint.size > 0 && this.chainAt.get(c.checkpoint.size) !== c.checkpoint.head_hash) {
        return { ...base, status: 'broken', first_broken: { seq: c.checkpoint.size, reason: `entry ${c.checkpoint.size} differs from the one the checkpoint of ${c.checkpoint.ts} signed: history was rewritten` } };
      }
    }
    for (const { head } of this.heads) {
      const seen = head.size === 0 ? EMPTY_HEX : this.rootAt.get(head.size);
      if (seen !== head.root.toString('hex')) {
        return { ...base, status: 'broken', first_broken: { seq: head.size === 0 ? null : head.size, reason: `the first ${head.size} entries do not make the tree the head of ${head.time} signed (root ${head.root.toString('hex').slice(0, 16)}…): history was rewritten` } };
      }
    }
    return { ...base, status: 'intact' };
  }

  /** Two signed heads of one size and different roots: the log key signed two histories. */
  private fork(): { seq: number; reason: string } | null {
    const bySize = new Map<number, Head>();
    for (const h of this.heads) {
      const other = bySize.get(h.head.size);
      if (!other) {
        bySize.set(h.head.size, h);
        continue;
      }
      if (other.head.root.equals(h.head.root)) continue;
      const shown = (x: Head) => (x.witnesses.length ? `cosigned by ${x.witnesses.join(', ')}` : `in ${x.from}`);
      return {
        seq: h.head.size,
        reason: `the log's key signed two different trees of size ${h.head.size} (roots ${other.head.root.toString('hex').slice(0, 16)}… ${shown(other)}, and ${h.head.root.toString('hex').slice(0, 16)}… ${shown(h)}): the log was forked, one history shown to some and another to others`,
      };
    }
    return null;
  }
}

const EMPTY_HEX = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

function legacySummary(c: SignedCheckpoint): EvidenceSummary {
  return { size: c.checkpoint.size, ts: c.checkpoint.ts, origin: c.checkpoint.origin, kind: 'checkpoint' };
}

function headSummary(h: Head): EvidenceSummary {
  return { size: h.head.size, ts: h.head.time, origin: h.head.origin, kind: 'tree_head', root: h.head.root.toString('hex'), witnesses: h.witnesses };
}
