/**
 * Tree heads to a C2SP tlog-witness: the witness checks that each head extends the last
 * one it cosigned (a consistency proof from that size) and cosigns it. A cosigned head is
 * evidence held by a third party's key: a host that rewrites or forks its log cannot get
 * the new history cosigned by a witness that already saw the old one.
 *
 * The sink remembers the size the witness last cosigned. It starts at 0 (it does not
 * know); the witness then answers 409 with its own size, and the sink retries once with a
 * proof from there. On success the note with its cosignature lines goes to onCosigned
 * (the daemon appends it to the checkpoint file, where `audit verify` and `audit export`
 * find it).
 */
import { printable, type Sink, type TreeHead } from './sink.js';

export type WitnessAnswer = { cosignatureLines: string[] } | { conflict: number } | { refused: number; reason: string };
/** The C2SP add-checkpoint client (src/witness/client.ts submitToWitness has this type). */
export type WitnessClient = (url: string, note: string, oldSize: number, proof: Buffer[], opts: { timeoutMs: number; ca?: string }) => Promise<WitnessAnswer>;

export interface WitnessSinkOptions {
  url: string;
  submit: WitnessClient;
  /** The consistency proof from the tree of oldSize to the tree of newSize, from the store's nodes. */
  proof: (oldSize: number, newSize: number) => Promise<Buffer[]>;
  /** Receives the note followed by the witness's cosignature lines. */
  onCosigned: (cosignedNote: string) => void | Promise<void>;
  /** Checks the cosignature(s) against the witness key the policy names; false refuses them. */
  verifyCosigned?: (cosignedNote: string) => boolean;
  timeoutMs?: number;
  ca?: string;
}

/** A signature line of a signed note: an em dash, a key name, base64 (C2SP signed-note). */
const SIGNATURE_LINE = /^\u2014 [^\s+]{1,256} [A-Za-z0-9+/]{1,1024}={0,2}$/;
/** Cosignature lines one answer may carry (one per witness key; a witness has one or two). */
const MAX_COSIGNATURES = 8;

export class WitnessSink implements Sink {
  readonly name: string;
  /** The size this witness last cosigned, as far as this daemon knows. */
  private cosignedSize = 0;
  private closed = false;

  constructor(private readonly o: WitnessSinkOptions) {
    this.name = `witness ${o.url}`;
  }

  get lastCosignedSize(): number {
    return this.cosignedSize;
  }

  async publish(head: TreeHead): Promise<void> {
    if (this.closed) throw new Error('the witness sink is closed');
    if (head.size < this.cosignedSize) throw new Error(`the head of size ${head.size} is older than the one this witness cosigned (${this.cosignedSize})`);
    let answer = await this.submit(head, this.cosignedSize);
    if ('conflict' in answer) {
      const theirs = answer.conflict;
      if (!Number.isSafeInteger(theirs) || theirs < 0) throw new Error('the witness answered 409 without a size');
      // A witness that cosigned more than the log holds saw a longer log: cut, or forked. Loud, never papered over.
      if (theirs > head.size) throw new Error(`the witness has cosigned a head of size ${theirs}, larger than this log's ${head.size}: the log was cut or forked`);
      answer = await this.submit(head, theirs);
      if ('conflict' in answer) throw new Error(`the witness answered 409 twice (its size ${answer.conflict})`);
    }
    if ('refused' in answer) throw new Error(`the witness refused the head of size ${head.size}: HTTP ${answer.refused} ${printable(answer.reason)}`);
    const lines = answer.cosignatureLines.map((l) => l.replace(/\n$/, ''));
    if (lines.length === 0 || lines.length > MAX_COSIGNATURES || !lines.every((l) => SIGNATURE_LINE.test(l))) throw new Error('the witness answered 200 without well-formed cosignature lines');
    const cosigned = head.note + lines.map((l) => `${l}\n`).join('');
    if (this.o.verifyCosigned && !this.o.verifyCosigned(cosigned)) throw new Error("the witness's cosignature does not verify with its configured key");
    this.cosignedSize = head.size;
    await this.o.onCosigned(cosigned);
  }

  private async submit(head: TreeHead, oldSize: number) {
    // Old size 0 is a first sight: the witness takes the head with no proof.
    const proof = oldSize === 0 || oldSize === head.size ? [] : await this.o.proof(oldSize, head.size);
    return this.o.submit(this.o.url, head.note, oldSize, proof, { timeoutMs: this.o.timeoutMs ?? 10_000, ...(this.o.ca ? { ca: this.o.ca } : {}) });
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
