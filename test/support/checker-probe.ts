/**
 * Run inside the booted test bed as root (test/integration/config-checkers-testbed.test.ts): a
 * RealHost with a real Executor, as the daemon builds them (src/daemon/main.ts), checks each case
 * of the JSON array in argv[2] with checkStaged and prints one JSON line per case: the result, or
 * the refusal's code and hint. A case with `approved` runs in the change lane, as an approved change does.
 */
import { readdirSync } from 'node:fs';
import { Executor } from '../../src/daemon/executor.js';
import { RealHost } from '../../src/daemon/host.js';
import { resolvePrograms } from '../../src/daemon/programs.js';
import { inLane } from '../../src/daemon/run-context.js';
import { AirlockError } from '../../src/protocol/errors.js';
import type { CheckerName } from '../../src/catalogue/lib/config-checkers.js';

const [checksDir, casesJson] = process.argv.slice(2);
const host = new RealHost('debian', new Executor({ programs: resolvePrograms() }), { checksDir: checksDir! });
const cases = JSON.parse(casesJson!) as Array<{ checker: CheckerName; target: string; content: string; approved?: boolean }>;
for (const c of cases) {
  const run = () => host.checkStaged(c.checker, c.target, c.content);
  try {
    process.stdout.write(`${JSON.stringify({ result: await (c.approved ? inLane('change', run) : run()) })}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify(e instanceof AirlockError ? { refused: e.code, message: e.message, hint: e.hint } : { error: String(e) })}\n`);
  }
}
process.stdout.write(`${JSON.stringify({ left: readdirSync(checksDir!) })}\n`);
