/**
 * Commands root runs later on the agent's behalf (a sudo grant, a cron job, the commands of
 * the service a timer starts) come from one allowlist with a grammar
 * (src/catalogue/lib/agent-programs.ts). The attacks of issue 22, finding 4: programs that
 * are root-owned ELF executables in a system directory, no program runner, and still make
 * whoever holds the grant root (newusers, chgpasswd, dpkg-statoverride, systemd-firstboot)
 * or take the host down (fsfreeze), or run programs (cgexec). Each is refused, whatever
 * its arguments, by the one check (src/catalogue/lib/agent-command.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentCommandRefusal } from '../../src/catalogue/lib/agent-command.js';
import { FixtureHost, type Node } from './catalogue-fixture-host.js';

const EXE = { file: '\x7fELF\x02\x01', mode: 0o755 };

/** The six command lines the review got past the old denylist. */
export const FINDING_4_ATTACKS: ReadonlyArray<[string, string[]]> = [
  ['/usr/bin/cgexec', ['-g', 'cpu:x', 'sh']],
  ['/usr/sbin/newusers', ['/var/lib/x/users']],
  ['/usr/bin/systemd-firstboot', ['--force', '--root-password=X']],
  ['/usr/sbin/dpkg-statoverride', ['--update', '--add', 'root', 'root', '0666', '/etc/shadow']],
  ['/usr/sbin/chgpasswd', []],
  ['/usr/sbin/fsfreeze', ['--freeze', '/']],
];

const tree: Record<string, Node> = { '/': { dir: true }, '/etc/shadow': { file: 'root:*:1::::::\n', mode: 0o640 }, '/var/lib/x/users': 'x\n' };
for (const [program] of FINDING_4_ATTACKS) tree[program] = EXE;

test('the six programs the review got past the denylist are refused, as a grant, a cron job and a timer\'s command', async () => {
  const host = new FixtureHost(tree);
  for (const [program, args] of FINDING_4_ATTACKS) {
    for (const what of ['the sudo grant', 'the cron job', 'x.service, which the timer starts']) {
      const r = await agentCommandRefusal(host, { what, program, args });
      assert.ok(r, `${program} ${args.join(' ')} passed as ${what}`);
      assert.equal(r.code, 'program_refused', `${program}: ${r.message}`);
      assert.match(r.message, /is not one of the programs/, program);
    }
  }
});
