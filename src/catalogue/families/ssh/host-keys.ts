/** The SHA-256 fingerprints of this host's own SSH host keys. */
import { AirlockError } from '../../../protocol/errors.js';
import { action } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';

const HOST_KEYS = ['ssh_host_ed25519_key.pub', 'ssh_host_ecdsa_key.pub', 'ssh_host_rsa_key.pub'].map((f) => `/etc/ssh/${f}`);

export const hostKeyFingerprints = action({
  name: 'HostKeyFingerprints',
  family: 'ssh',
  description: "Show the SHA-256 fingerprints of this host's SSH host keys.",
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: HOST_KEYS,
  example: {},
  current: async (_p, host) => {
    const present: string[] = [];
    for (const f of HOST_KEYS) if ((await host.stat(f))?.isFile) present.push(f);
    return { present };
  },
  check: (_p, cur) => {
    if (cur.present.length === 0) throw new AirlockError('unsupported_platform', 'no_host_keys', 'this host has no SSH host keys', 'install openssh-server');
  },
  preview: (_p, cur) => ({ summary: `Fingerprint ${cur.present.length} host key(s)`, change: null }),
  mechanism: (_p, cur) => cur.present.map((f) => command('ssh-keygen', ['-l', '-f', f])),
});
