/**
 * `airlock hosts`: the names the relay knows. `list` asks the relay (an agent's account may not
 * read its files); `add` and `remove` are a person's, as root: `add` reads the host's keys with
 * the system's ssh-keyscan, shows the fingerprint and trusts it only when the person confirms
 * it at a terminal or gave it with --fingerprint. Nothing is trusted on first use unseen.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline/promises';
import { relaySocket } from '../client/client.js';
import { parseGroup } from '../protocol/account-files.js';
import { AirlockError, type WireError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { encodeFrame, readFirstFrame } from '../protocol/framing.js';
import { MAX_RELAY_FRAME, RELAY_ACCOUNT, type HostsMessage } from '../protocol/relay.js';
import { checkHostName } from '../protocol/relay.js';
import { fingerprint, formatHosts, hostFromDestination, parseHosts, parseScannedKeys, withHostKeys, type HostKey, type RelayHost } from '../protocol/relay-hosts.js';
import { writeFileSafely } from '../protocol/safe-write.js';
import { requireRoot } from './installation.js';
import { relayFiles } from './relay-files.js';
import { c, printJson } from './ui.js';

export async function hostsList(o: { json?: boolean }): Promise<void> {
  const path = relaySocket();
  const sock = net.createConnection(path);
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', (e: NodeJS.ErrnoException) => reject(new AirlockError('transient', 'relay_unreachable', `cannot reach the relay at ${path} (${e.code ?? e.message})`, e.code === 'EACCES' ? 'this account is not in the airlock-fleet group' : 'start it: `sudo systemctl start airlock-relay`')));
  });
  sock.write(encodeFrame({ type: 'hosts' }));
  const { message } = await readFirstFrame(sock, 1024 * 1024, 10_000).finally(() => sock.destroy());
  const m = message as HostsMessage & { ok?: boolean; error?: WireError };
  if (m.ok === false && m.error) throw AirlockError.fromWire(m.error);
  if (m.type !== 'hosts' || !Array.isArray(m.hosts)) throw new AirlockError('validation', 'bad_handshake', 'the relay answered with something unexpected');
  if (o.json) return printJson(m.hosts);
  if (m.hosts.length === 0) return void process.stdout.write('the relay knows no host yet: a person adds one with `sudo airlock hosts add NAME DEST`\n');
  for (const h of m.hosts) process.stdout.write(`${escapeText(h.name, 'line')}  ${h.fingerprints.map((f) => escapeText(f, 'line')).join(' ') || c.red('no trusted key')}\n`);
}

/** ssh-keyscan's view of a host's keys: at most 10 s, no shell. */
function scanKeys(host: RelayHost): Promise<HostKey[]> {
  return new Promise((resolve, reject) => {
    execFile('/usr/bin/ssh-keyscan', ['-T', '10', '-p', String(host.port), '-t', 'ed25519,ecdsa,rsa', '--', host.address], { timeout: 20_000, maxBuffer: 256 * 1024 }, (err, stdout) => {
      const keys = parseScannedKeys(stdout);
      // Ed25519 first: the key the relay's ssh then prefers, and the one a person most likely compares.
      keys.sort((a, b) => Number(b.type === 'ssh-ed25519') - Number(a.type === 'ssh-ed25519'));
      if (keys.length) resolve(keys);
      else reject(new AirlockError('transient', 'host_unreachable', `no host key could be read from ${host.address} port ${host.port}${err ? ` (${escapeText(err.message.split('\n')[0]!, 'line')})` : ''}`, 'check the address and that sshd listens there'));
    });
  });
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

const relayGid = () => parseGroup(readFileSync('/etc/group', 'utf8')).find((g) => g.name === RELAY_ACCOUNT)?.gid;

function readConfig(dir: string) {
  const files = relayFiles(dir);
  if (!existsSync(files.hosts)) throw new AirlockError('validation', 'no_relay', `there is no relay host list at ${files.hosts}`, 'run `sudo airlock relay install` first');
  return { files, hosts: parseHosts(readFileSync(files.hosts, 'utf8')), known: existsSync(files.knownHosts) ? readFileSync(files.knownHosts, 'utf8') : '' };
}

function writeConfig(files: ReturnType<typeof relayFiles>, hosts: Map<string, RelayHost>, known: string): void {
  const gid = relayGid();
  if (gid === undefined) throw new AirlockError('validation', 'no_relay', `there is no ${RELAY_ACCOUNT} group`, 'run `sudo airlock relay install` first');
  // Key first: a host listed without its key is refused by the relay; a key without its host is harmless.
  writeFileSafely(files.knownHosts, known, { mode: 0o644 });
  writeFileSafely(files.hosts, formatHosts(hosts), { mode: 0o640, owner: { uid: 0, gid } });
}

export async function hostsAdd(name: string, destination: string, o: { fingerprint?: string; replace?: boolean; configDir: string; json?: boolean }): Promise<void> {
  requireRoot('hosts add');
  const host = hostFromDestination(name, destination);
  const { files, hosts, known } = readConfig(o.configDir);
  if (hosts.has(host.name) && !o.replace) throw new AirlockError('conflict', 'host_exists', `the relay knows ${host.name} already`, `give --replace to trust its new address and key (after a reinstall), or choose another name`);
  const keys = await scanKeys(host);
  const key = keys[0]!;
  const print = fingerprint(key);
  const where = `${host.name} (${host.user}@${host.address} port ${host.port})`;
  if (o.fingerprint !== undefined) {
    if (o.fingerprint.trim() !== print) throw new AirlockError('authorization', 'fingerprint_mismatch', `${where} shows the key ${print}, not ${escapeText(o.fingerprint, 'line')}: not trusted`, 'check the fingerprint on the host: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub');
  } else {
    process.stderr.write(`${where} shows this ${key.type} host key:\n  ${c.bold(print)}\nCompare it with what the host itself says (at its console: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub).\n`);
    if (!(await confirm('Trust it for this name? [y/N] '))) {
      throw new AirlockError('authorization', 'not_confirmed', `the key of ${host.name} was not confirmed: nothing was written`, process.stdin.isTTY ? undefined : 'at a terminal, answer y; in a script, give --fingerprint SHA256:... as read on the host');
    }
  }
  hosts.set(host.name, host);
  writeConfig(files, hosts, withHostKeys(known, host.name, [key]));
  if (o.json) return printJson({ ok: true, host, fingerprint: print });
  process.stdout.write(`${c.green('✓')} ${where}: key ${print} trusted; agents reach it as \`airlock --host ${host.name} ...\`\n`);
}

export async function hostsRemove(name: string, o: { configDir: string }): Promise<void> {
  requireRoot('hosts remove');
  checkHostName(name);
  const { files, hosts, known } = readConfig(o.configDir);
  if (!hosts.delete(name)) throw new AirlockError('validation', 'unknown_host', `the relay knows no host ${name}`, '`airlock hosts` lists them');
  writeConfig(files, hosts, withHostKeys(known, name, []));
  process.stdout.write(`${c.green('✓')} removed ${name} and its trusted key\n`);
}
