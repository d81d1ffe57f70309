/**
 * Work on an agent's text is bounded: a parameter value longer than its schema allows is
 * refused for its length alone, before any pattern, control-character scan or parser reads
 * it. The frame allows a megabyte, and each check over it ran on the daemon's event loop
 * (measured: about 10 ms of main-thread time per such preview, a third of it the control
 * scan and the pattern, so eight in flight held another client's answer 140 ms on a slow CI
 * machine, test/integration/mask-stall.test.ts). Checked over the whole catalogue: for every
 * parameter of every action, a megabyte of text gets only refusals that read no further than
 * its type or length.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { paramNames } from '../../src/catalogue/param-errors.js';

/** Issues a check raises without reading the text: its type, its length, an enum or union miss. */
const WITHOUT_READING = new Set(['too_big', 'invalid_type', 'invalid_value', 'invalid_union', 'unrecognized_keys']);

test('every parameter of every action: a megabyte of text is refused for its length, and no pattern or refinement reads it', () => {
  const huge = '\u0001-'.repeat(512 * 1024);
  let strings = 0;
  const read: string[] = [];
  for (const a of CATALOGUE.values()) {
    for (const key of paramNames(a.params)) {
      const r = a.params.safeParse({ [key]: huge });
      assert.equal(r.success, false, `${a.name} accepted a megabyte as ${key}`);
      const mine = r.error!.issues.filter((i) => i.path[0] === key || (i.code === 'invalid_union' && i.path.length === 0));
      if (mine.some((i) => i.code === 'too_big')) strings++;
      for (const i of mine) if (!WITHOUT_READING.has(i.code)) read.push(`${a.name}.${key}: ${i.code} (${i.message})`);
    }
  }
  assert.deepEqual(read, [], 'checks that read past the length limit');
  assert.ok(strings > 100, `only ${strings} string parameters were refused for their length`);
});
