/**
 * One masking task, done the same way wherever it runs: in a mask worker (worker.ts), or on
 * the daemon's event loop when it is small (output.ts, INLINE_CHARS). Texts are masked one by
 * one, a JSON value string by string, and pieces as one stream (a MaskStream across them, as
 * a program's output is masked when it comes in parts).
 */
import { maskDeep } from './deep.js';
import { addCounts, maskText, type MaskCounts, type MaskOptions } from './mask.js';
import type { MaskReply, PseudonymSpec, WholeMaskOp } from './pool.js';
import { Pseudonyms, type PseudonymClass } from './pseudonyms.js';
import { MaskStream } from './stream.js';

/** The last pseudonym key seen, rebuilt only when it changes (a policy reload). */
let pseudonymsFor: { spec: string; opts: MaskOptions } = { spec: 'null', opts: {} };

/** The masker's options for a task's pseudonyms (the key travels with each task). */
export function optionsOf(spec: PseudonymSpec | null): MaskOptions {
  const key = JSON.stringify(spec);
  if (pseudonymsFor.spec !== key) {
    const p = spec ? new Pseudonyms(Buffer.from(spec.keyHex, 'hex'), spec.classes as PseudonymClass[]) : null;
    pseudonymsFor = { spec: key, opts: p?.active ? { pseudonyms: p } : {} };
  }
  return pseudonymsFor.opts;
}

/** A task whose whole text comes at once; it may throw (its caller withholds the text: fail closed). */
export function maskTask(m: WholeMaskOp): MaskReply {
  const opts = optionsOf(m.pseudonyms);
  switch (m.op) {
    case 'texts': {
      const counts: MaskCounts = {};
      const texts = m.texts.map((t) => {
        const r = maskText(t, opts);
        addCounts(counts, r.counts);
        return r.text;
      });
      return { texts, counts };
    }
    case 'deep': {
      const r = maskDeep(m.value, opts);
      return { value: r.value, counts: r.counts };
    }
    case 'pieces': {
      const s = new MaskStream(opts);
      let text = '';
      for (const p of m.pieces) text += s.push(p);
      text += s.end();
      return { text, counts: s.counts };
    }
  }
}
