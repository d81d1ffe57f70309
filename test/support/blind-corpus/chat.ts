/** Chat server secrets: Matrix Synapse keys and shared secrets, Mattermost salts, Rocket.Chat admin. */
import { ALNUM, type Rng } from './rng.js';
import type { KindSpec } from './types.js';
import { domain, fqdn, ip, text } from './context.js';

/** Synapse generates these from letters, digits and a few punctuation marks. */
const synapseSecret = (r: Rng): string => r.chars('abcdefghijklmnopqrstuvwxyz', 1) + r.chars(ALNUM + '.;~^@=*_-,:', 49);

const signing: KindSpec = {
  kinds: ['synapse-signing-key'],
  make(r) {
    const v = r.b64(32).replace(/=+$/, '');
    const id = `a_${r.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 4)}`;
    const d = domain(r);
    if (r.chance(0.5)) return { name: `cat /etc/matrix-synapse/${d}.signing.key`, secrets: [{ kind: 'synapse-signing-key', value: v }], text: text([`ed25519 ${id} ${v}`]) };
    return { name: 'docker exec synapse cat /data/homeserver.signing.key; grep signing /data/homeserver.yaml', secrets: [{ kind: 'synapse-signing-key', value: v }],
      text: text([`ed25519 ${id} ${v}`, `signing_key_path: "/data/${d}.signing.key"`, 'trusted_key_servers:', '  - server_name: "matrix.org"', '    verify_keys:', `      "ed25519:auto": "Noi6WqcDj0QmPxCNQqgezwTlBKrfqehY1u2FyWP9uYw"`]) };
  },
};

const homeserver = (r: Rng, extra: string[]): string => {
  const d = domain(r);
  return text([`server_name: "${d}"`, 'pid_file: /data/homeserver.pid', 'listeners:', '  - port: 8008', '    tls: false', '    type: http', '    x_forwarded: true',
    '    resources:', '      - names: [client, federation]', '        compress: false', 'database:', '  name: psycopg2', '  args:', '    user: synapse',
    '    password: "${POSTGRES_PASSWORD}"', '    database: synapse', `    host: ${ip(r)}`, '    cp_min: 5', '    cp_max: 10', 'log_config: "/data/log.config"',
    'media_store_path: /data/media_store', 'enable_registration: false', ...extra, 'report_stats: false', `signing_key_path: "/data/${d}.signing.key"`]);
};

const registration: KindSpec = {
  kinds: ['synapse-registration-secret'],
  make(r) {
    const v = synapseSecret(r);
    return { name: 'cat /etc/matrix-synapse/homeserver.yaml', secrets: [{ kind: 'synapse-registration-secret', value: v }], text: homeserver(r, [`registration_shared_secret: "${v}"`]) };
  },
};

const macaroon: KindSpec = {
  kinds: ['synapse-macaroon-secret', 'synapse-form-secret'],
  make(r) {
    const m = synapseSecret(r);
    const f = synapseSecret(r);
    return { name: 'cat /data/homeserver.yaml', secrets: [{ kind: 'synapse-macaroon-secret', value: m }, { kind: 'synapse-form-secret', value: f }],
      text: homeserver(r, [`macaroon_secret_key: "${m}"`, `form_secret: "${f}"`]) };
  },
};

const mattermost: KindSpec = {
  kinds: ['mattermost-salt', 'mattermost-at-rest-key'],
  make(r) {
    const salt = r.alnum(32);
    const key = r.alnum(32);
    const cfg = {
      ServiceSettings: { SiteURL: `https://chat.${domain(r)}`, ListenAddress: ':8065', ConnectionSecurity: '', EnableLocalMode: true },
      SqlSettings: { DriverName: 'postgres', DataSource: 'postgres://mmuser:${MM_DBPASS}@localhost/mattermost?sslmode=disable&connect_timeout=10', AtRestEncryptKey: key, QueryTimeout: 30 },
      FileSettings: { DriverName: 'local', Directory: './data/', PublicLinkSalt: salt, MaxFileSize: 104857600 },
      EmailSettings: { EnableSignUpWithEmail: true, SMTPServer: `smtp.${domain(r)}`, SMTPPort: '587', SMTPPassword: '' },
    };
    return { name: 'cat /opt/mattermost/config/config.json', secrets: [{ kind: 'mattermost-salt', value: salt }, { kind: 'mattermost-at-rest-key', value: key }], text: JSON.stringify(cfg, null, '    ') + '\n' };
  },
};

const rocket: KindSpec = {
  kinds: ['rocketchat-admin-pass'],
  make(r) {
    const v = r.password();
    return { name: 'cat /opt/rocketchat/compose.yml', secrets: [{ kind: 'rocketchat-admin-pass', value: v }],
      text: text(['services:', '  rocketchat:', '    image: registry.rocket.chat/rocketchat/rocket.chat:6.10.2', '    restart: always', '    environment:',
        '      MONGO_URL: "mongodb://mongodb:27017/rocketchat?replicaSet=rs0"', '      MONGO_OPLOG_URL: "mongodb://mongodb:27017/local?replicaSet=rs0"',
        `      ROOT_URL: https://${fqdn(r)}`, '      PORT: 3000', '      DEPLOY_METHOD: docker', '      ADMIN_USERNAME: rcadmin', `      ADMIN_PASS: "${v}"`,
        `      ADMIN_EMAIL: admin@${domain(r)}`, '      OVERWRITE_SETTING_Show_Setup_Wizard: completed', '    depends_on:', '      - mongodb', '    ports:', '      - "127.0.0.1:3000:3000"']) };
  },
};

export const chatSpecs: KindSpec[] = [signing, registration, macaroon, mattermost, rocket];
