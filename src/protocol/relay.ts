/**
 * The relay's side of the wire, shared by the relay (`airlock relay`, on the agent's
 * workstation), the proxy (`airlock proxy`, on each host) and the clients that reach a host
 * by name (the CLI's --host, the MCP tools' `host`, the planner's --hosts).
 *
 * A connection to the relay's socket starts with one frame: `{type: 'hosts'}` asks for the
 * names the relay knows (answered `{type: 'hosts', hosts: [{name, fingerprints}]}`), or
 * `{type: 'relay', host: NAME}`.
 * The relay opens an OpenSSH session to that host, whose forced command is `airlock proxy`;
 * the proxy connects to the host's own daemon socket and sends `{type: 'proxied', host}` (the
 * host's own name) once it is connected. The relay then answers `{type: 'relayed', host: NAME,
 * remote}` and from there on passes bytes both ways unchanged: the client speaks the daemon's
 * protocol (hello, requests) to the remote daemon, which sees the relay's login account on
 * that host through the kernel. A refusal at any point is one error frame, then the close.
 *
 * Where the relay keeps what the agent must never read: the SSH key and the host list, in
 * RELAY_CONFIG_DIR, owned by root and readable by the relay's account alone.
 */
import { AirlockError } from './errors.js';

export const DEFAULT_RELAY_SOCKET = '/run/airlock-relay/relay.sock';
export const RELAY_CONFIG_DIR = '/etc/airlock/relay';
/** The relay's own system account, and its group, which alone may read the key and the host list. */
export const RELAY_ACCOUNT = 'airlock-relay';
/** The group whose members (the agents' accounts) may use the relay's socket. */
export const RELAY_USERS_GROUP = 'airlock-fleet';
/** The account the relay logs in as on each host (`airlock proxy authorize` makes it there). */
export const DEFAULT_PROXY_ACCOUNT = 'airlock-relay';

/** A host's name in the relay's list: what a person and an agent type, and what answers are labelled with. */
const HOST_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const isHostName = (s: unknown): s is string => typeof s === 'string' && HOST_NAME.test(s);

export function checkHostName(s: unknown): string {
  if (isHostName(s)) return s;
  throw new AirlockError('validation', 'bad_host_name', `a host name is 1 to 63 of a-z, 0-9, '.', '_' and '-', starting with a letter or digit, not ${JSON.stringify(String(s).slice(0, 80))}`, 'run `airlock hosts` to list the names the relay knows');
}

/** The relay's first frame from a client. */
export interface RelayRequest {
  type: 'relay';
  host: string;
}
/** The proxy's first frame to the relay, once it reached its daemon. */
export interface ProxiedMessage {
  type: 'proxied';
  /** The host's own name for itself (its hostname), shown beside the relay's name for it. */
  host: string;
}
/** The relay's answer to a client: from here on, the bytes are the remote daemon's. */
export interface RelayedMessage {
  type: 'relayed';
  host: string;
  remote: string;
}

/** The relay's list of hosts, for accounts that may not read its files. */
export interface HostsMessage {
  type: 'hosts';
  hosts: Array<{ name: string; fingerprints: string[] }>;
}

/** The frame a relay or proxy reads first is small: a bound on what it buffers before it trusts anything. */
export const MAX_RELAY_FRAME = 4096;
