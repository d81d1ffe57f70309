/**
 * `airlock relay`: on the agent's workstation, under its own account, the only process that
 * holds the SSH key. A local client (an agent's CLI or MCP server) connects to its socket and
 * names a host; the relay opens an OpenSSH session to that host's `airlock proxy` and, once the
 * proxy says it reached its daemon, passes bytes both ways. It decides nothing about actions:
 * the remote daemon does, seeing the relay's account there; the relay only decides who may use
 * it (the kernel's peer credentials: members of RELAY_USERS_GROUP, or root), which hosts exist
 * (the list a person wrote) and which keys they must show (the ones a person confirmed).
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, readFileSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import { native } from '../native/addon.js';
import { AirlockError, type WireError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { encodeFrame, readFirstFrame } from '../protocol/framing.js';
import { MAX_RELAY_FRAME, type HostsMessage, type RelayedMessage } from '../protocol/relay.js';
import { fingerprint, hostKeysOf, parseHosts, type RelayHost } from '../protocol/relay-hosts.js';
import { SSH, SSH_CONNECT_SECONDS, sshArgs, sshFailure } from './ssh.js';

export interface RelayOptions {
  socket: string;
  hostsFile: string;
  knownHosts: string;
  key: string;
  /** The gid whose members may use the relay (root always may); null: root alone. */
  usersGid: number | null;
  log: (line: string) => void;
}

/** ssh sessions at once, in all: each is a process and a TCP connection on the workstation. */
export const MAX_SESSIONS = 64;
/** Sessions of one local account at once: one agent cannot take the relay from another. */
export const MAX_SESSIONS_PER_UID = 16;
/** Sessions to one host at once: a fan-out bound, and a bound on what one agent asks of one host's sshd. */
export const MAX_SESSIONS_PER_HOST = 16;
/** Sessions of one account to one host: half the host's, so one agent never holds a host alone. */
export const MAX_SESSIONS_PER_UID_HOST = 8;
/** How long a refused client's socket may linger for its last frame to leave. */
const LINGER_MS = 1_000;
/** A client names its host at once; nothing else is waited for. */
const FIRST_FRAME_MS = 5_000;
/** ssh's handshake, then the proxy's word that it reached its daemon. */
const PROXY_GREETING_MS = (SSH_CONNECT_SECONDS + 10) * 1000;
/** What of ssh's stderr is kept to explain a failure. */
const MAX_STDERR = 8 * 1024;

const refusal = (e: unknown): Buffer => {
  const err = e instanceof AirlockError ? e : new AirlockError('transient', 'relay_failed', (e as Error).message);
  return encodeFrame({ ok: false, id: null, error: err.toWire() });
};

export function startRelay(o: RelayOptions): Promise<net.Server> {
  const perUid = new Map<number, number>();
  const perHost = new Map<string, number>();
  const perUidHost = new Map<string, number>();
  let sessions = 0;
  const take = (m: Map<string | number, number>, k: string | number, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n <= 0) m.delete(k);
    else m.set(k, n);
  };

  const server = net.createServer({ allowHalfOpen: false, pauseOnConnect: true }, (sock) => {
    let uid: number;
    let groups: number[];
    try {
      const cred = native().peerCredentials((sock as unknown as { _handle: { fd: number } })._handle.fd);
      if (cred.pidfd >= 0) native().closeFd(cred.pidfd);
      uid = cred.uid;
      groups = [cred.gid, ...cred.groups];
    } catch (e) {
      o.log(`refusing a connection: cannot read peer credentials (${(e as Error).message})`);
      sock.destroy();
      return;
    }
    const who = `uid ${uid}`;
    // A refused or answered client is let go at once, whether it reads or not: a socket it held open
    // would count against every other account's connections.
    const endWith = (frame: Buffer) => {
      sock.end(frame, () => sock.destroy());
      setTimeout(() => sock.destroy(), LINGER_MS).unref();
    };
    const refuse = (e: unknown) => {
      o.log(`${who}: refused: ${escapeText((e as Error).message, 'line')}`);
      endWith(refusal(e));
    };
    if (uid !== 0 && (o.usersGid === null || !groups.includes(o.usersGid))) {
      return refuse(new AirlockError('authorization', 'not_a_relay_user', `this account (${who}) may not use the relay`, 'a person adds it to the airlock-fleet group: `sudo usermod -aG airlock-fleet ACCOUNT`'));
    }
    if (sessions >= MAX_SESSIONS || (perUid.get(uid) ?? 0) >= MAX_SESSIONS_PER_UID) {
      return refuse(new AirlockError('transient', 'relay_busy', `the relay holds ${sessions} sessions (at most ${MAX_SESSIONS}, ${MAX_SESSIONS_PER_UID} per account)`, 'try again when some have finished'));
    }
    sessions++;
    take(perUid, uid, 1);
    let hostName: string | null = null;
    sock.once('close', () => {
      sessions--;
      take(perUid, uid, -1);
      if (hostName !== null) {
        take(perHost, hostName, -1);
        take(perUidHost, `${uid} ${hostName}`, -1);
      }
    });
    sock.on('error', () => {});
    void (async () => {
      let host: RelayHost;
      let first: { message: unknown; rest: Buffer };
      try {
        first = await readFirstFrame(sock, MAX_RELAY_FRAME, FIRST_FRAME_MS);
        const m = first.message as { type?: unknown; host?: unknown };
        const hosts = parseHosts(readFileSync(o.hostsFile, 'utf8'));
        if (m?.type === 'hosts') {
          const known = readFileSync(o.knownHosts, 'utf8');
          const list: HostsMessage = { type: 'hosts', hosts: [...hosts.keys()].sort().map((name) => ({ name, fingerprints: hostKeysOf(known, name).map(fingerprint) })) };
          return endWith(encodeFrame(list));
        }
        if (m?.type !== 'relay' || typeof m.host !== 'string') throw new AirlockError('validation', 'bad_relay_request', 'the relay expects {"type":"relay","host":NAME} or {"type":"hosts"} first');
        const found = hosts.get(m.host);
        if (!found) throw new AirlockError('validation', 'unknown_host', `the relay knows no host ${JSON.stringify(m.host.slice(0, 64))}`, `\`airlock hosts\` lists them; a person adds one with \`sudo airlock hosts add NAME DEST\``);
        if (hostKeysOf(readFileSync(o.knownHosts, 'utf8'), found.name).length === 0) throw new AirlockError('authorization', 'host_key_unknown', `no host key is trusted for ${found.name}`, `a person runs \`sudo airlock hosts add ${found.name} DEST\` and checks the fingerprint it shows`);
        if ((perHost.get(found.name) ?? 0) >= MAX_SESSIONS_PER_HOST) throw new AirlockError('transient', 'relay_busy', `the relay holds ${MAX_SESSIONS_PER_HOST} sessions to ${found.name} already`, 'try again when some have finished');
        if ((perUidHost.get(`${uid} ${found.name}`) ?? 0) >= MAX_SESSIONS_PER_UID_HOST) throw new AirlockError('transient', 'relay_busy', `this account holds ${MAX_SESSIONS_PER_UID_HOST} sessions to ${found.name} already`, 'try again when some have finished');
        host = found;
      } catch (e) {
        return refuse(e);
      }
      hostName = host.name;
      take(perHost, host.name, 1);
      take(perUidHost, `${uid} ${host.name}`, 1);
      const started = Date.now();
      const ssh = spawn(SSH, sshArgs(host, { key: o.key, knownHosts: o.knownHosts }), { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } });
      let stderr = '';
      ssh.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-MAX_STDERR)));
      const exited = new Promise<void>((r) => ssh.once('close', () => r()));
      ssh.stdin!.on('error', () => {});
      sock.once('close', () => ssh.kill('SIGTERM'));
      let greeting: { message: unknown; rest: Buffer };
      try {
        greeting = await Promise.race([
          readFirstFrame(ssh.stdout!, MAX_RELAY_FRAME, PROXY_GREETING_MS),
          exited.then(() => Promise.reject(sshFailure(host.name, stderr))),
        ]);
      } catch (e) {
        ssh.kill('SIGTERM');
        await exited;
        // ssh's own words explain a failure better than "closed before its first message".
        return refuse(e instanceof AirlockError && (e.code === 'connection_closed' || e.code === 'timeout') ? sshFailure(host.name, stderr) : e);
      }
      const g = greeting.message as { type?: unknown; host?: unknown; ok?: unknown; error?: WireError };
      if (g?.ok === false && g.error) {
        const err = AirlockError.fromWire(g.error);
        ssh.kill('SIGTERM');
        return refuse(new AirlockError(err.category, err.code, `${host.name}: ${err.message}`, err.hint));
      }
      if (g?.type !== 'proxied') {
        ssh.kill('SIGTERM');
        return refuse(new AirlockError('validation', 'bad_proxy', `${host.name} did not answer as airlock proxy does`, `on ${host.name}, the relay's key must be authorised with \`airlock proxy authorize\`, whose forced command is the proxy`));
      }
      const remote = escapeText(String(g.host ?? '').slice(0, 253), 'line');
      const relayed: RelayedMessage = { type: 'relayed', host: host.name, remote };
      o.log(`${who} -> ${host.name} (${remote}): open`);
      sock.write(encodeFrame(relayed));
      if (greeting.rest.length) sock.write(greeting.rest);
      if (first.rest.length) ssh.stdin!.write(first.rest);
      let up = first.rest.length;
      let down = greeting.rest.length;
      sock.on('data', (c: Buffer) => (up += c.length));
      ssh.stdout!.on('data', (c: Buffer) => (down += c.length));
      sock.pipe(ssh.stdin!);
      ssh.stdout!.pipe(sock);
      sock.resume();
      ssh.stdout!.resume();
      await exited;
      sock.end();
      o.log(`${who} -> ${host.name}: closed after ${((Date.now() - started) / 1000).toFixed(1)} s, ${up} bytes up, ${down} down`);
    })();
  });
  server.maxConnections = MAX_SESSIONS * 2; // a bound on sockets not yet counted as sessions, refused by the kernel's backlog beyond
  return new Promise((resolve, reject) => {
    try {
      unlinkSync(o.socket);
    } catch {}
    server.once('error', reject);
    server.listen(o.socket, () => {
      // The socket and its folder (RuntimeDirectory=, group airlock-fleet) let the users' group in, and nobody else.
      try {
        if (o.usersGid !== null) chownSync(o.socket, -1, o.usersGid);
        chmodSync(o.socket, 0o660);
      } catch (e) {
        server.close();
        return reject(new AirlockError('authorization', 'relay_group', `cannot give the relay's socket to its users' group (${(e as Error).message})`, 'run the relay as its unit does: Group=airlock-fleet'));
      }
      resolve(server);
    });
  });
}
