// A reporter for `node --test` (scripts/test.js adds it beside the usual one): at the end, the
// slowest test files and how long each took, so a run that nears the suite's time budget (40
// minutes on two cores, docs/TESTING.md) says which files to look at. The runner's own event
// for a whole file (`test:complete` at nesting 0, named by the file's path) carries its time.
import { relative } from 'node:path';

const SHOWN = 12;

export default async function* fileTimes(source) {
  const files = new Map();
  for await (const event of source) {
    const d = event.data;
    if (event.type === 'test:complete' && d.nesting === 0 && d.file && d.name === d.file) files.set(d.file, d.details?.duration_ms ?? 0);
  }
  if (files.size === 0) return;
  const slowest = [...files].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  const total = [...files.values()].reduce((a, b) => a + b, 0);
  const clock = (ms) => {
    const s = Math.round(ms / 1000);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  };
  yield `# the slowest of ${files.size} files, in minutes:seconds (${clock(total)} summed over files that ran side by side):\n`;
  for (const [file, ms] of slowest) yield `#   ${clock(ms).padStart(6)}  ${relative(process.cwd(), file)}\n`;
}
