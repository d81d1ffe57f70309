/** Password hashes in crypt(3), htpasswd, argon2 and PostgreSQL SCRAM formats. */
import { CRYPT64, type Rng } from './rng.js';
import type { KindSpec } from './types.js';
import { user } from './context.js';

const c = (r: Rng, n: number): string => r.chars(CRYPT64, n);
const b64nopad = (r: Rng, bytes: number): string => r.b64(bytes).replace(/=+$/, '');
const days = (r: Rng): number => r.int(19000, 20400);

/** A shadow file with system accounts locked and one or two real hashes. */
function shadow(r: Rng, kind: string, hash: () => string, name: string): ReturnType<KindSpec['make']> {
  const h1 = hash();
  const lines = ['root:*:19716:0:99999:7:::', 'daemon:*:19716:0:99999:7:::', 'bin:*:19716:0:99999:7:::', 'sys:*:19716:0:99999:7:::',
    'sync:*:19716:0:99999:7:::', 'games:*:19716:0:99999:7:::', 'man:*:19716:0:99999:7:::', 'www-data:*:19716:0:99999:7:::',
    'systemd-network:!*:19716::::::', 'messagebus:!:19716::::::', 'sshd:!:19716::::::', `${user(r)}:${h1}:${days(r)}:0:99999:7:::`];
  const secrets = [{ kind, value: h1 }];
  if (r.chance(0.5)) {
    const h2 = hash();
    lines.push(`${r.pick(['deploy2', 'ansible', 'svc-backup'])}:${h2}:${days(r)}:0:99999:7:::`);
    secrets.push({ kind, value: h2 });
  }
  lines.push(`_chrony:!:${days(r)}::::::`);
  return { name, secrets, text: lines.join('\n') + '\n' };
}

function cryptKind(kind: string, hash: (r: Rng) => string, tool: string): KindSpec {
  return {
    kinds: [kind],
    make(r) {
      const shape = r.int(0, 2);
      if (shape === 0) return shadow(r, kind, () => hash(r), 'cat /etc/shadow');
      const v = hash(r);
      if (shape === 1) {
        const u = user(r);
        return { name: `getent shadow ${u}`, secrets: [{ kind, value: v }], text: `${u}:${v}:${days(r)}:0:99999:7:::\n` };
      }
      return { name: `${tool} output`, secrets: [{ kind, value: v }], text: `$ ${tool}\nPassword: \n${v}\n` };
    },
  };
}

const md5 = cryptKind('crypt-md5', (r) => `$1$${c(r, 8)}$${c(r, 22)}`, 'openssl passwd -1');
const sha256 = cryptKind('crypt-sha256', (r) => `$5$${r.chance(0.3) ? 'rounds=10000$' : ''}${c(r, 16)}$${c(r, 43)}`, 'mkpasswd -m sha-256');
const sha512 = cryptKind('crypt-sha512', (r) => `$6$${c(r, 16)}$${c(r, 86)}`, 'mkpasswd -m sha-512');
const yescrypt = cryptKind('crypt-yescrypt', (r) => `$y$j9T$${c(r, 22)}$${c(r, 43)}`, 'mkpasswd -m yescrypt');
const scrypt = cryptKind('crypt-scrypt', (r) => `$7$C6..../....${c(r, 22)}$${c(r, 43)}`, 'mkpasswd -m scrypt');

const bcryptHash = (r: Rng, v: string): string => `$${v}$${String(r.pick([10, 11, 12, 13])).padStart(2, '0')}$${c(r, 53)}`;

const bcrypt: KindSpec = {
  kinds: ['crypt-bcrypt'],
  make(r) {
    const shape = r.int(0, 2);
    if (shape === 0) return shadow(r, 'crypt-bcrypt', () => bcryptHash(r, '2b'), 'cat /etc/shadow');
    const v = bcryptHash(r, '2y');
    if (shape === 1) {
      const u2 = user(r);
      const v2 = bcryptHash(r, '2y');
      return { name: 'cat /etc/nginx/.htpasswd', secrets: [{ kind: 'crypt-bcrypt', value: v }, { kind: 'crypt-bcrypt', value: v2 }], text: `admin:${v}\n${u2}:${v2}\n` };
    }
    return { name: 'docker exec vaultwarden env | grep ADMIN; traefik labels', secrets: [{ kind: 'crypt-bcrypt', value: v }],
      text: `traefik.http.middlewares.auth.basicauth.users=admin:${v}\ntraefik.http.routers.dash.middlewares=auth\ntraefik.http.routers.dash.rule=Host(\`traefik.lan\`)\n` };
  },
};

const argon: KindSpec = {
  kinds: ['argon2id-hash'],
  make(r) {
    const v = `$argon2id$v=19$m=${r.pick([65536, 19456, 47104])},t=${r.int(2, 3)},p=${r.int(1, 4)}$${b64nopad(r, 16)}$${b64nopad(r, 32)}`;
    const shape = r.int(0, 2);
    if (shape === 0) {
      return { name: 'cat /etc/authelia/users_database.yml', secrets: [{ kind: 'argon2id-hash', value: v }],
        text: `users:\n  ${user(r)}:\n    disabled: false\n    displayname: "Ops Admin"\n    password: "${v}"\n    email: ops@example.com\n    groups:\n      - admins\n      - dev\n` };
    }
    if (shape === 1) {
      return { name: 'cat /opt/vaultwarden/.env', secrets: [{ kind: 'argon2id-hash', value: v }],
        text: `DOMAIN=https://vault.example.com\nSIGNUPS_ALLOWED=false\nADMIN_TOKEN='${v}'\nWEBSOCKET_ENABLED=true\nLOG_LEVEL=warn\n` };
    }
    return { name: "sqlite3 gitea.db 'select name,passwd from user'", secrets: [{ kind: 'argon2id-hash', value: v }], text: `${user(r)}|${v}\n` };
  },
};

const shaHt: KindSpec = {
  kinds: ['htpasswd-sha1'],
  make(r) {
    const v = `{SHA}${r.b64(20)}`;
    const u = user(r);
    return { name: r.pick(['cat /etc/apache2/.htpasswd', 'cat /etc/nagios4/htpasswd.users']), secrets: [{ kind: 'htpasswd-sha1', value: v }], text: `${u}:${v}\n` };
  },
};

const apr1: KindSpec = {
  kinds: ['htpasswd-apr1'],
  make(r) {
    const v = `$apr1$${c(r, 8)}$${c(r, 22)}`;
    if (r.chance(0.5)) return { name: 'cat /etc/nginx/htpasswd', secrets: [{ kind: 'htpasswd-apr1', value: v }], text: `${user(r)}:${v}\n` };
    return { name: 'htpasswd -nb monitor ...', secrets: [{ kind: 'htpasswd-apr1', value: v }], text: `monitor:${v}\n\n` };
  },
};

const scram: KindSpec = {
  kinds: ['postgres-scram-verifier'],
  make(r) {
    const v = `SCRAM-SHA-256$4096:${r.b64(16)}$${r.b64(32)}:${r.b64(32)}`;
    return { name: "psql -c 'select rolname, rolpassword from pg_authid'", secrets: [{ kind: 'postgres-scram-verifier', value: v }],
      text: ['          rolname          |                                                              rolpassword',
        '---------------------------+---------------------------------------------------------------------------------------------------------------------------------------',
        ' pg_database_owner         | ', ' pg_read_all_data          | ', ' pg_monitor                | ', ' postgres                  | ',
        ` ${user(r).padEnd(25)} | ${v}`, '(6 rows)', ''].join('\n') };
  },
};

export const hashSpecs: KindSpec[] = [md5, sha256, sha512, yescrypt, bcrypt, argon, scrypt, shaHt, apr1, scram];
