/** One-time-password secrets: recovery codes, otpauth:// URIs, raw TOTP seeds. */
import { BASE32, HEX, type Rng } from './rng.js';
import type { KindSpec } from './types.js';
import { domain, lsLine, text, user } from './context.js';

const recovery: KindSpec = {
  kinds: ['otp-recovery-code'],
  make(r) {
    const shape = r.int(0, 2);
    if (shape === 0) {
      const codes = Array.from({ length: 10 }, () => `${r.chars(HEX, 5)}-${r.chars(HEX, 5)}`);
      return { name: 'cat ~/Documents/github-recovery-codes.txt', secrets: codes.map((value) => ({ kind: 'otp-recovery-code', value })), text: text(codes) };
    }
    if (shape === 1) {
      const codes = Array.from({ length: 8 }, () => `${r.digits(4)} ${r.chars('0123456789', 4)}`);
      return { name: 'cat backup-codes-admin.txt', secrets: codes.map((value) => ({ kind: 'otp-recovery-code', value })),
        text: text(['SAVE YOUR BACKUP CODES', 'Keep these backup codes somewhere safe but accessible.', '', ...codes.map((c, i) => `${i + 1}. ${c}`), '',
          `(${user(r)}@${domain(r)})`, 'You can only use each backup code once.']) };
    }
    const codes = Array.from({ length: 10 }, () => r.chars(HEX, 16));
    return { name: 'gitlab-rake "gitlab:two_factor:..." recovery codes', secrets: codes.map((value) => ({ kind: 'otp-recovery-code', value })),
      text: text(['Your two-factor authentication recovery codes are:', '', ...codes, '', 'During sign in, use one of the codes above when prompted for', 'your two-factor code.']) };
  },
};

const base32 = (r: Rng, n: number): string => r.chars(BASE32, n);

const uri: KindSpec = {
  kinds: ['totp-uri-secret'],
  make(r) {
    const v = base32(r, r.pick([16, 26, 32]));
    const issuer = r.pick(['Nextcloud', 'GitLab', 'Vaultwarden', 'Grafana', 'Keycloak', 'Authelia']);
    const who = `${user(r)}@${domain(r)}`;
    const u = `otpauth://totp/${issuer}:${encodeURIComponent(who)}?secret=${v}&issuer=${issuer}&algorithm=SHA1&digits=6&period=30`;
    if (r.chance(0.5)) {
      return { name: 'cat ~/.bash_history | tail', secrets: [{ kind: 'totp-uri-secret', value: v }],
        text: text(['ls -la', 'cd /srv/onboarding', `qrencode -t ANSIUTF8 '${u}'`, 'rm -f qr.png', 'exit']) };
    }
    return { name: 'cat /var/lib/authelia/export.yml', secrets: [{ kind: 'totp-uri-secret', value: v }],
      text: text(['totp_configurations:', `  - username: ${user(r)}`, `    issuer: ${issuer}`, `    created_at: 2025-0${r.int(1, 9)}-1${r.int(0, 9)}T10:00:00Z`, '    algorithm: SHA1', '    digits: 6', '    period: 30', `    secret: ${v}`, `    uri: "${u}"`]) };
  },
};

const seed: KindSpec = {
  kinds: ['totp-raw-seed'],
  make(r) {
    const who = user(r);
    const shape = r.int(0, 2);
    if (shape === 0) {
      const v = base32(r, r.pick([16, 26, 32]));
      const scratch = Array.from({ length: 5 }, () => r.digits(8));
      return { name: `ls -l /home/${who}/.google_authenticator; cat it`,
        secrets: [{ kind: 'totp-raw-seed', value: v }, ...scratch.map((value) => ({ kind: 'otp-recovery-code', value }))],
        text: text([lsLine(r, '-r--------', who, `/home/${who}/.google_authenticator`), v, '" RATE_LIMIT 3 30', '" WINDOW_SIZE 3', '" DISALLOW_REUSE', '" TOTP_AUTH', ...scratch]) };
    }
    if (shape === 1) {
      const v = base32(r, 32);
      return { name: 'tail ~/.bash_history', secrets: [{ kind: 'totp-raw-seed', value: v }],
        text: text(['cd /etc/openvpn', 'systemctl status openvpn-server@server', `oathtool --totp -b ${v}`, 'journalctl -u openvpn-server@server -n 50', 'exit']) };
    }
    // liboath's users file: type, user, PIN, hex seed.
    const v = r.hex(40);
    return { name: 'cat /etc/users.oath', secrets: [{ kind: 'totp-raw-seed', value: v }],
      text: text(['# Option User Prefix Seed', `HOTP/T30/6 ${who} - ${v}`]) };
  },
};

export const otpSpecs: KindSpec[] = [recovery, uri, seed];
