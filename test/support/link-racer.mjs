/**
 * The attacker of test/integration/client-files.test.ts, run as the agent's account: for as long
 * as it lives it puts a symbolic link to VICTIM in place of every entry of DIR whose name starts
 * with PREFIX (the temporary file a writer makes beside its target), as fast as it can: on the
 * kernel's word that the entry appeared (inotify, through fs.watch), and by listing DIR every 5 ms. Plain JavaScript, so it starts without tsx. Prints how many swaps it made when stopped.
 */
import { readdirSync, symlinkSync, unlinkSync, lstatSync, watch } from 'node:fs';
import { join } from 'node:path';

const [dir, prefix, victim] = process.argv.slice(2);
let swaps = 0;

function swap(name) {
  if (!name || !name.startsWith(prefix)) return;
  const p = join(dir, name);
  try {
    if (lstatSync(p).isSymbolicLink()) return;
    unlinkSync(p);
    symlinkSync(victim, p);
    swaps++;
  } catch {}
}

// Asleep in the kernel until an entry appears, so the scheduler runs it the moment one does (a
// busy loop spends its share of the CPU and waits its turn); a listing now and then, should an event be lost.
watch(dir, (_event, name) => swap(name));
setInterval(() => {
  try {
    for (const name of readdirSync(dir)) swap(name);
  } catch {}
}, 5);
process.on('SIGTERM', () => {
  process.stdout.write(`${swaps}\n`);
  process.exit(0);
});
process.stdout.write('ready\n');
