/** A check of sshd's configuration and host keys as a reload would read them (sshd -t). */
import { action } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { diagnostics } from '../../lib/checker-output.js';
import { privsepMissing, privsepWarning, refuseWithoutSshd, sshdInstalled } from './sshd-state.js';

export const testSshdConfig = action({
  name: 'TestSshdConfig',
  family: 'ssh',
  description: "Check the SSH server's configuration and host keys with sshd -t, as a reload would read them. Succeeds when sshd accepts it; fails with sshd's error otherwise.",
  risk: 'low',
  readOnly: true,
  // Sensitive: sshd -t quotes the configuration lines it cannot accept.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const installed = await sshdInstalled(host);
    return {
      installed,
      // sshd's messages name the file, the line and the keyword or value it rejects; its configuration holds no secrets.
      problems: installed ? diagnostics(await host.run('sshd', ['-t']), /\S/) : [],
      privsepMissing: installed && (await privsepMissing(host)),
    };
  },
  check: (_p, cur) => refuseWithoutSshd(cur.installed),
  preview: (_p, cur) => ({
    summary: 'Check the SSH server configuration with sshd -t',
    change: null,
    warnings: [...cur.problems.map((p) => `sshd -t reports now: ${p}`), ...privsepWarning(cur.privsepMissing)],
  }),
  mechanism: () => [command('sshd', ['-t'])],
});
