/** The relay's files in its configuration folder, named once for the relay, install and `airlock hosts`. */
import { join } from 'node:path';

export function relayFiles(dir: string): { hosts: string; key: string; publicKey: string; knownHosts: string } {
  return { hosts: join(dir, 'hosts.toml'), key: join(dir, 'id_ed25519'), publicKey: join(dir, 'id_ed25519.pub'), knownHosts: join(dir, 'known_hosts') };
}
