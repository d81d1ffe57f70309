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
import { publicKeyFromRaw } from './keys.js';
import { leafHash, MerkleFrontier } from './merkle.js';
import { cosignatureValid, keyHash, parseCheckpointBody, parseNote, parseTreeHead, readTreeHeadLines, SIG_ED25519, TREE_HEAD_TAG, type TreeHead, type Vkey } from './note.js';
import { checkpointLineSize } from './checkpoint-size.js';

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

/** "<host>/airlock/<log id>" (checkpoint.ts checkpointOrigin). */
const ORIGIN = /^[a-z0-9.-]{1,253}\/airlock\/([0-9a-f]{16})$/;

interface Head {
  head: TreeHead;
  witnesses: string[];
  from: string;
}

/** A tree head line as read before the walk: its size is known, its signatures not yet checked. */
interface Candidate {
  note: string;
  from: string;
  where: string;
  line: number;
}

/**
 * The evidence of one verification. It is read before the walk, for the sizes it names; its
 * signatures are checked after it (judge), against the log's key chain, which only the walk
 * reveals (a rotation brings in the next key).
 */
export class Evidence {
  readonly warnings: string[] = [];
  private readonly texts: readonly CheckpointEvidence[];
  private readonly candidates: Candidate[] = [];
  /** Sizes the evidence names, each with what the walk saw there. */
  private readonly chainAt = new Map<number, string | null>();
  private readonly rootAt = new Map<number, string | null>();
  private frontier = MerkleFrontier.empty();
  /** Entries 1..startSeq were archived: the walk began after them (seed). */
  private startSeq = 0;

  constructor(
    evidence: readonly CheckpointEvidence[],
    /** end: the log given is a segment ending there; evidence of larger sizes is about later entries. */
    private readonly o: { origin?: string; witnesses?: readonly WitnessKey[]; end?: number } = {},
  ) {
    this.texts = evidence;
    for (const { from, text } of evidence) {
      const where = evidence.length > 1 ? ` of ${from}` : '';
      if (text.includes(CHECKPOINT_TAG)) {
        for (const raw of text.split('\n')) {
          const size = raw.includes(CHECKPOINT_TAG) ? checkpointLineSize(raw) : null;
          if (size !== null) this.chainAt.set(size, null);
        }
      }
      if (!text.includes(TREE_HEAD_TAG)) continue;
      for (const r of readTreeHeadLines(text)) {
        if ('reason' in r) {
          this.warnings.push(`tree head line ${r.line}${where} ignored: ${r.reason}`);
          continue;
        }
        const note = parseNote(r.note);
        const body = typeof note === 'string' ? note : parseCheckpointBody(note.body);
        if (typeof body === 'string') {
          this.warnings.push(`tree head line ${r.line}${where} ignored: ${body}`);
          continue;
        }
        this.rootAt.set(body.size, null);
        this.candidates.push({ note: r.note, from, where, line: r.line });
      }
    }
  }

  /**
   * Before the walk, for a log whose entries 1..seq were archived: the tree as it stood at seq
   * (its frontier) and the chain hash of entry seq. Evidence of smaller sizes is then about the
   * archive (checked with it), and a head of size seq must vouch for this frontier.
   */
  seed(seq: number, chainHash: string, frontier: readonly Buffer[]): void {
    this.frontier = MerkleFrontier.fromEdge(seq, frontier);
    this.startSeq = seq;
    if (this.chainAt.has(seq)) this.chainAt.set(seq, chainHash);
    if (this.rootAt.has(seq)) this.rootAt.set(seq, this.frontier.root().toString('hex'));
  }

  /** Called for each entry in order: its seq, chain hash and stored body. */
  observe(seq: number, chainHash: string, body: string): void {
    this.frontier.push(leafHash(body));
    if (this.chainAt.has(seq)) this.chainAt.set(seq, chainHash);
    if (this.rootAt.has(seq)) this.rootAt.set(seq, this.frontier.root().toString('hex'));
  }

  /** The Merkle root of the entries observed so far. */
  root(): Buffer {
    return this.frontier.root();
  }

  /**
   * The verdict on the length and history of a log of `entries` entries, all of which verified.
   * `logKeys`: every key of the log's chain (a checkpoint is signed by the key current when it was
   * written); `logId`: the id its origins must name (the key id of entry 1's key).
   */
  judge(entries: number, logKeys: readonly Buffer[], logId: string): Judgement {
    const all = this.verified(logKeys, logId);
    // Sizes before the start speak of archived entries, which this walk did not read.
    const end = this.o.end ?? Infinity;
    const about = (size: number) => size >= this.startSeq && size <= end;
    const legacy = all.legacy.filter((c) => about(c.checkpoint.size));
    const heads = all.heads.filter((h) => about(h.head.size));
    const unknownKey = all.unknownKey.filter(about);
    const warnings = this.warnings;
    const none = { checkpoint: null, witnessed: null, warnings };
    if (this.texts.length === 0) {
      return { ...none, status: 'cannot_verify', reason: 'no checkpoint was given: nothing signed says how long the log should be, so a cut tail cannot be ruled out (give the checkpoint file with --checkpoints FILE)' };
    }
    if (legacy.length === 0 && heads.length === 0) {
      return { ...none, status: 'cannot_verify', reason: 'no valid checkpoint or tree head of this log was found: nothing signed says how long the log should be, so a cut tail cannot be ruled out' };
    }
    // A walk that began after archived entries: a signed head of that size must vouch for the
    // tree it began from (its root is checked with the others below).
    if (this.startSeq > 0 && !heads.some((h) => h.head.size === this.startSeq)) {
      return { ...none, status: 'cannot_verify', reason: `the log starts after entry ${this.startSeq} (entries 1 to ${this.startSeq} are archived), and no tree head of size ${this.startSeq} signed by a key you hold vouches for where it starts: verify it with its archive (\`airlock audit verify --archive DIR\`)` };
    }
    // A segment's range is signed (verify.ts checks it, segment-range.ts), and the archiver puts the
    // signed head of its last size in it: without one, nothing the log's key signed ends there.
    if (this.o.end !== undefined) {
      if (!heads.some((h) => h.head.size === end)) {
        return { ...none, status: 'cannot_verify', reason: `the segment says it ends at entry ${end}, but no tree head of size ${end} signed by a key you hold is among its evidence: nothing signed says the segment ends there` };
      }
      const later = all.heads.filter((h) => h.head.size > end).length + all.legacy.filter((c) => c.checkpoint.size > end).length;
      if (later > 0) warnings.push(`${later} checkpoint(s) of sizes past the segment's signed range (to entry ${end}) were set aside: they are about later entries, verified with those (\`--archive DIR\` walks the segments and the live log together)`);
    }
    const summaries = [...legacy.map(legacySummary), ...heads.map(headSummary)];
    const latest = summaries.reduce((a, b) => (b.size > a.size || (b.size === a.size && b.kind === 'tree_head') ? b : a));
    const witnessedHeads = heads.filter((h) => h.witnesses.length > 0).map(headSummary);
    const witnessed = witnessedHeads.length ? witnessedHeads.reduce((a, b) => (b.size > a.size ? b : a)) : null;
    const base = { checkpoint: latest, witnessed, warnings };
    const fork = forkOf(heads);
    if (fork) return { ...base, status: 'broken', first_broken: fork };
    if (entries < latest.size) {
      const by = latest.witnesses?.length ? `, cosigned by ${latest.witnesses.join(', ')},` : '';
      return { ...base, status: 'broken', first_broken: { seq: entries + 1, reason: `log has ${entries} entries but the ${latest.kind === 'tree_head' ? 'tree head' : 'checkpoint'} of ${latest.ts}${by} covers ${latest.size}: the tail was cut` } };
    }
    for (const c of legacy) {
      if (c.checkpoint.size > 0 && this.chainAt.get(c.checkpoint.size) !== c.checkpoint.head_hash) {
        return { ...base, status: 'broken', first_broken: { seq: c.checkpoint.size, reason: `entry ${c.checkpoint.size} differs from the one the checkpoint of ${c.checkpoint.ts} signed: history was rewritten` } };
      }
    }
    for (const { head } of heads) {
      const seen = head.size === 0 ? EMPTY_HEX : this.rootAt.get(head.size);
      if (seen !== head.root.toString('hex')) {
        return { ...base, status: 'broken', first_broken: { seq: head.size === 0 ? null : head.size, reason: `the first ${head.size} entries do not make the tree the head of ${head.time} signed (root ${head.root.toString('hex').slice(0, 16)}…): history was rewritten` } };
      }
    }
    // A head of this log signed by a key the auditor does not hold (one a rotation the log no longer
    // shows brought in, say: its tail cut before the rotation) could cover more than the log has:
    // nothing proves the log whole until that key is given.
    if (unknownKey.length > 0) {
      const largest = Math.max(...unknownKey);
      return { ...base, status: 'cannot_verify', reason: `${unknownKey.length} tree head(s) naming this log (the largest of size ${largest}) are signed by a key you do not hold: a later key of the log, after a rotation the log no longer shows, would make it shorter than they say; verify with the whole key history (\`airlock audit pubkey --history --out FILE\`, from the host's administrator)` };
    }
    // Witnesses named but none of them cosigned: the heads are the host's word alone.
    const asked = this.o.witnesses ?? [];
    if (asked.length > 0 && witnessed === null) {
      return { ...base, status: 'cannot_verify', reason: `no tree head of this log is cosigned by the witness${asked.length > 1 ? 'es' : ''} you named (${asked.map((w) => w.name).join(', ')}): the heads are the host's own word, which a rewritten log would carry too` };
    }
    return { ...base, status: 'intact' };
  }

  /** The evidence whose signatures verify with a key of the chain and that names this log; the rest becomes warnings. */
  private verified(logKeys: readonly Buffer[], logId: string): { legacy: SignedCheckpoint[]; heads: Head[]; unknownKey: number[] } {
    const legacy: SignedCheckpoint[] = [];
    const keyObjects = logKeys.map(publicKeyFromRaw);
    for (const { from, text } of this.texts) {
      if (!text.includes(CHECKPOINT_TAG)) continue;
      const where = this.texts.length > 1 ? ` of ${from}` : '';
      for (const p of parseCheckpoints(text, keyObjects, { logId, ...(this.o.origin === undefined ? {} : { origin: this.o.origin }) })) {
        if (p.ok) legacy.push(p.value);
        else this.warnings.push(`checkpoint line ${p.line}${where} ignored: ${p.reason}`);
      }
    }
    const heads: Head[] = [];
    const unknownKey: number[] = [];
    for (const c of this.candidates) {
      const head = parseTreeHead(c.note, logKeys, this.o.origin);
      if (typeof head === 'string') {
        this.warnings.push(`tree head line ${c.line}${c.where} ignored: ${head}`);
        const size = namesLogWithUnknownKey(c.note, logKeys, logId);
        if (size !== null) unknownKey.push(size);
        continue;
      }
      const named = ORIGIN.exec(head.origin)?.[1];
      if (named !== logId) {
        this.warnings.push(`tree head line ${c.line}${c.where} ignored: it names another log (${head.origin}), not log ${logId}`);
        continue;
      }
      const witnesses = (this.o.witnesses ?? []).filter((w) => cosignatureValid(c.note, w.name, w.publicRaw) !== null).map((w) => w.name);
      heads.push({ head, witnesses, from: c.from });
    }
    return { legacy, heads, unknownKey };
  }
}

/** Two signed heads of one size and different roots: the log key signed two histories. */
function forkOf(heads: readonly Head[]): { seq: number; reason: string } | null {
  const bySize = new Map<number, Head>();
  for (const h of heads) {
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

/**
 * The size of a tree head that names this log and whose log signature line (the origin as key name)
 * is of a key not among `logKeys`; null otherwise (another log, malformed, or signed by a key we
 * hold and failing: that is a forgery, noise like any other).
 */
function namesLogWithUnknownKey(noteText: string, logKeys: readonly Buffer[], logId: string): number | null {
  const note = parseNote(noteText);
  if (typeof note === 'string') return null;
  const body = parseCheckpointBody(note.body);
  if (typeof body === 'string' || ORIGIN.exec(body.origin)?.[1] !== logId) return null;
  const ours = logKeys.map((k) => keyHash(body.origin, SIG_ED25519, k));
  const lines = note.signatures.filter((x) => x.name === body.origin);
  return lines.length > 0 && lines.every((x) => !ours.some((h) => h.equals(x.keyHash))) ? body.size : null;
}

const EMPTY_HEX = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

function legacySummary(c: SignedCheckpoint): EvidenceSummary {
  return { size: c.checkpoint.size, ts: c.checkpoint.ts, origin: c.checkpoint.origin, kind: 'checkpoint' };
}

function headSummary(h: Head): EvidenceSummary {
  return { size: h.head.size, ts: h.head.time, origin: h.head.origin, kind: 'tree_head', root: h.head.root.toString('hex'), witnesses: h.witnesses };
}
