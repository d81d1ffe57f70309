/** DnsResolvers: the resolver configuration, /etc/resolv.conf or the known file of a resolver manager it links to. */
import { AirlockError } from '../../../protocol/errors.js';
import { action } from '../../action.js';
import { linkTarget } from '../../lib/host-files.js';
import { fileScan } from '../../mechanism.js';
import { params } from '../../params.js';

/** Where /etc/resolv.conf may point when a resolver manager owns it. */
const RESOLV_CONF = ['/etc/resolv.conf', '/run/systemd/resolve/stub-resolv.conf', '/run/systemd/resolve/resolv.conf', '/run/resolvconf/resolv.conf'];

export const dnsResolvers = action({
  name: 'DnsResolvers',
  family: 'network',
  description: 'Show the resolver configuration (/etc/resolv.conf, or the systemd-resolved / resolvconf file it links to).',
  risk: 'low',
  readOnly: true,
  // Sensitive: the resolver configuration file in full (internal servers and search domains).
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: RESOLV_CONF,
  example: {},
  current: async (_p, host) => {
    const target = await linkTarget(host, RESOLV_CONF[0]!);
    return { file: target ?? RESOLV_CONF[0]!, linked: target !== null };
  },
  check: (_p, cur) => {
    if (!RESOLV_CONF.includes(cur.file)) {
      throw new AirlockError('authorization', 'path_not_allowed', `/etc/resolv.conf links to ${cur.file}, which is not a known resolver file`, `known targets: ${RESOLV_CONF.slice(1).join(', ')}`);
    }
  },
  preview: (_p, cur) => ({ summary: `Read ${cur.file}${cur.linked ? ' (the target of /etc/resolv.conf)' : ''}`, change: null }),
  mechanism: (_p, cur) => [fileScan(cur.file)],
});
