/**
 * Short outputs (a one-line token file, a single shadow entry) are shown the way an admin
 * would see them in a terminal: inside a transcript with a few harmless commands around, so
 * every planted file carries several lines of ordinary context (4+ lines, 80+ characters).
 */
import type { Rng } from './rng.js';
import type { PlantedFile } from './types.js';
import { host, ip, lsLine, pid, user } from './context.js';

const BEFORE: ((r: Rng) => string[])[] = [
  (r) => ['uptime', ` 08:0${r.int(0, 9)}:${r.int(10, 59)} up ${r.int(1, 300)} days,  ${r.int(1, 23)}:${r.int(10, 59)},  1 user,  load average: 0.${r.int(10, 99)}, 0.${r.int(10, 99)}, 0.${r.int(10, 99)}`],
  (r) => ['id', `uid=0(root) gid=0(root) groups=0(root)`],
  (r) => ['ls -l', lsLine(r, '-rw-r--r--', 'root', 'notes.txt'), lsLine(r, 'drwxr-xr-x', 'root', 'scripts')],
  (r) => ['systemctl is-active nginx postgresql', 'active', r.pick(['active', 'inactive'])],
  (r) => ['df -h /', 'Filesystem      Size  Used Avail Use% Mounted on', `/dev/sda1        ${r.int(20, 200)}G   ${r.int(5, 19)}G   ${r.int(5, 90)}G  ${r.int(10, 90)}% /`],
  (r) => { const a = ip(r); return [`ping -c1 ${a}`, `64 bytes from ${a}: icmp_seq=1 ttl=64 time=0.${r.int(100, 999)} ms`]; },
  (r) => ['pgrep -a sshd', `${pid(r)} sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups`],
];

export function inTranscript(r: Rng, file: PlantedFile): PlantedFile {
  const lines0 = file.text.split('\n').filter((l) => l.length > 0).length;
  const context = file.text.length - [...new Set(file.secrets.map((s) => s.value))].reduce((n, v) => n + v.length, 0);
  if (lines0 >= 4 && context >= 80) return file;
  const who = r.chance(0.7) ? 'root' : user(r);
  const prompt = `${who}@${host(r)}:${who === 'root' ? '/root' : '~'}${who === 'root' ? '#' : '$'} `;
  const lines: string[] = [];
  for (let i = 0; i < 2; i++) {
    const [cmd, ...out] = r.pick(BEFORE)(r);
    lines.push(prompt + cmd, ...out);
  }
  const body = file.text.endsWith('\n') ? file.text.slice(0, -1) : file.text;
  const cmd = file.name.replace(/ \(.*\)$/, '');
  return { ...file, text: `${lines.join('\n')}\n${prompt}${cmd}\n${body}\n${prompt}\n` };
}
