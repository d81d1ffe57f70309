/**
 * Non-secret surroundings shared by the generators: host names, addresses, times, users and
 * the kind of journal and shell lines an admin sees around a config file.
 */
import type { Rng } from './rng.js';

const HOSTS = ['web-01', 'web-02', 'db-prod-1', 'db-replica-2', 'app-03', 'edge-lb-1', 'ci-runner-4', 'mon-01',
  'k8s-node-7', 'k8s-cp-1', 'backup-01', 'mail-relay', 'vpn-gw', 'nas-02', 'build-11', 'cache-05'];
const DOMAINS = ['example.internal', 'corp.example.com', 'prod.example.net', 'lan', 'infra.example.org'];
const USERS = ['alice', 'bob', 'deploy', 'backup', 'svc-app', 'jenkins', 'grafana', 'monitor', 'carol', 'ops'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export const host = (r: Rng): string => r.pick(HOSTS);
export const fqdn = (r: Rng): string => `${r.pick(HOSTS)}.${r.pick(DOMAINS)}`;
export const domain = (r: Rng): string => r.pick(DOMAINS);
export const user = (r: Rng): string => r.pick(USERS);
export const ip = (r: Rng): string => r.pick([`10.${r.int(0, 40)}.${r.int(0, 254)}.${r.int(2, 250)}`,
  `192.168.${r.int(0, 30)}.${r.int(2, 250)}`, `172.${r.int(16, 31)}.${r.int(0, 254)}.${r.int(2, 250)}`]);
export const port = (r: Rng): number => r.pick([22, 80, 443, 5432, 3306, 6379, 8080, 8443, 9090, 9200]);
export const pid = (r: Rng): number => r.int(300, 480000);

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** Journal-style time: "Dec 06 07:41:12". */
export function jtime(r: Rng): string {
  return `${r.pick(MONTHS)} ${pad(r.int(1, 28))} ${pad(r.int(0, 23))}:${pad(r.int(0, 59))}:${pad(r.int(0, 59))}`;
}
/** ISO 8601 UTC time. */
export function iso(r: Rng): string {
  return `20${r.int(23, 26)}-${pad(r.int(1, 12))}-${pad(r.int(1, 28))}T${pad(r.int(0, 23))}:${pad(r.int(0, 59))}:${pad(r.int(0, 59))}Z`;
}
export function date(r: Rng): string {
  return `20${r.int(23, 26)}-${pad(r.int(1, 12))}-${pad(r.int(1, 28))}`;
}

const BENIGN = [
  (r: Rng) => `systemd[1]: Started session-${r.int(2, 900)}.scope - Session ${r.int(2, 900)} of User ${user(r)}.`,
  (r: Rng) => `CRON[${pid(r)}]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)`,
  (r: Rng) => `sshd[${pid(r)}]: Accepted publickey for ${user(r)} from ${ip(r)} port ${r.int(30000, 65000)} ssh2: ED25519 SHA256:${r.b64(32).replace(/=+$/, '')}`,
  (r: Rng) => `systemd[1]: logrotate.service: Deactivated successfully.`,
  (r: Rng) => `kernel: [UFW BLOCK] IN=eth0 OUT= SRC=${ip(r)} DST=${ip(r)} LEN=60 PROTO=TCP SPT=${r.int(1024, 65000)} DPT=${port(r)}`,
  (r: Rng) => `systemd-logind[${pid(r)}]: New session ${r.int(2, 900)} of user ${user(r)}.`,
  (r: Rng) => `systemd[1]: Starting apt-daily.service - Daily apt download activities...`,
  (r: Rng) => `chronyd[${pid(r)}]: Selected source ${ip(r)} (ntp.ubuntu.com)`,
  (r: Rng) => `systemd-resolved[${pid(r)}]: Clock change detected. Flushing caches.`,
  (r: Rng) => `dhclient[${pid(r)}]: bound to ${ip(r)} -- renewal in ${r.int(600, 40000)} seconds.`,
];

/** n journal lines about nothing secret, from one host, in time order. */
export function journal(r: Rng, n: number, h = host(r)): string[] {
  const month = r.pick(MONTHS);
  const day = pad(r.int(1, 28));
  let t = r.int(0, 20 * 3600);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    t += r.int(0, 240);
    const clock = `${pad(Math.floor(t / 3600) % 24)}:${pad(Math.floor(t / 60) % 60)}:${pad(t % 60)}`;
    out.push(`${month} ${day} ${clock} ${h} ${r.pick(BENIGN)(r)}`);
  }
  return out;
}

/** An `ls -l` line for a file. */
export function lsLine(r: Rng, mode: string, owner: string, name: string): string {
  return `${mode} 1 ${owner} ${owner} ${r.int(80, 9000)} ${r.pick(MONTHS)} ${pad(r.int(1, 28))} ${pad(r.int(0, 23))}:${pad(r.int(0, 59))} ${name}`;
}

/** A file made of lines. */
export const text = (lines: string[]): string => lines.join('\n') + '\n';
