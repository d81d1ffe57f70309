/**
 * The one ssh command line the relay runs, and what its failures mean. The system's OpenSSH
 * client does all the cryptography; this file only pins it down: no configuration file of any
 * user or of the system (-F /dev/null), the relay's key alone, the host key a person confirmed
 * under the host's alias and nothing learnt on the way (StrictHostKeyChecking, no global known
 * hosts, UpdateHostKeys off), nothing forwarded, no terminal, no local command, no proxy, no
 * shared connection. The remote side's forced command is `airlock proxy` whatever is asked; the
 * command is named anyway so that a host authorised without one still runs only the proxy.
 */
import type { RelayHost } from '../protocol/relay-hosts.js';
import { hostKeyAlias } from '../protocol/relay-hosts.js';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';

export const SSH = '/usr/bin/ssh';

/** How long ssh may take to reach a host and finish its handshake. */
export const SSH_CONNECT_SECONDS = 15;

export function sshArgs(host: RelayHost, files: { key: string; knownHosts: string }): string[] {
  const o = (kv: string) => ['-o', kv];
  return [
    '-F', '/dev/null',
    '-i', files.key,
    ...o('IdentitiesOnly=yes'),
    ...o('IdentityAgent=none'),
    ...o('BatchMode=yes'),
    ...o('StrictHostKeyChecking=yes'),
    ...o(`UserKnownHostsFile=${files.knownHosts}`),
    ...o('GlobalKnownHostsFile=/dev/null'),
    ...o(`HostKeyAlias=${hostKeyAlias(host.name)}`),
    ...o('UpdateHostKeys=no'),
    ...o('CheckHostIP=no'),
    ...o(`ConnectTimeout=${SSH_CONNECT_SECONDS}`),
    ...o('ServerAliveInterval=15'),
    ...o('ServerAliveCountMax=3'),
    ...o('ForwardAgent=no'),
    ...o('ForwardX11=no'),
    ...o('ClearAllForwardings=yes'),
    ...o('PermitLocalCommand=no'),
    ...o('ProxyCommand=none'),
    ...o('ControlMaster=no'),
    ...o('ControlPath=none'),
    ...o('LogLevel=ERROR'),
    '-T',
    '-p', String(host.port),
    '-l', host.user,
    '--', host.address,
    'airlock', 'proxy',
  ];
}

/** What ssh's last words (its stderr, host-influenced: escaped and bounded) mean for the client. */
export function sshFailure(hostName: string, stderr: string): AirlockError {
  const said = escapeText(stderr.trim().split('\n').slice(-3).join(' / ').slice(0, 400), 'line');
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr)) {
    return new AirlockError('authorization', 'host_key_changed', `the host ${hostName} answered with another host key than the one a person confirmed: refused (${said})`, `if ${hostName} was reinstalled, a person checks its new key and runs \`sudo airlock hosts add ${hostName} DEST --replace\`; otherwise something is in the way of ${hostName}`);
  }
  if (/Host key verification failed|No .* host key is known/i.test(stderr)) {
    return new AirlockError('authorization', 'host_key_unknown', `no host key is trusted for ${hostName}: refused (${said})`, `a person runs \`sudo airlock hosts add ${hostName} DEST\` and checks the fingerprint it shows`);
  }
  if (/Permission denied/i.test(stderr)) {
    return new AirlockError('authorization', 'relay_not_authorized', `${hostName} does not accept the relay's key (${said})`, `on ${hostName}, as root: \`airlock proxy authorize 'RELAY_PUBLIC_KEY'\` (\`airlock relay key\` prints it here)`);
  }
  return new AirlockError('transient', 'host_unreachable', `cannot reach ${hostName} through ssh (${said || 'ssh exited without a word'})`, `check that ${hostName} is up and its sshd listens; \`airlock hosts\` shows its address`);
}
