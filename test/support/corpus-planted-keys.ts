/** Planted files, part 1: private keys in every armour, cloud credentials, shadow hashes (see secret-corpus.ts). */
import type { Armoured } from './corpus-keys.js';
import * as K from './corpus-keys.js';
import * as T from './corpus-tokens.js';
import type { Rng } from './corpus-random.js';
import type { CorpusFile, PlantedSecret } from './secret-corpus.js';

export interface Planter {
  /** Records `value` as planted and returns it, so a template reads as the file it builds. */
  (kind: string, value: string): string;
  /** Records an armoured key's chosen body line and returns the whole armour. */
  block(kind: string, key: Armoured): string;
}

export function plantedFile(name: string, build: (s: Planter) => string): CorpusFile {
  const secrets: PlantedSecret[] = [];
  const s = ((kind: string, value: string) => (secrets.push({ kind, value }), value)) as Planter;
  s.block = (kind, key) => (secrets.push({ kind, value: key.line }), key.text);
  return { name, text: build(s), secrets };
}

/** A PEM key as a JSON string holds it ("\n" escapes); the planted value is a 60-character run of one body line. */
function jsonEscapedKey(s: Planter, kind: string, key: Armoured): string {
  s(kind, key.line.slice(2, 62));
  return JSON.stringify(key.text).slice(1, -1);
}

export function keyFiles(rng: Rng): CorpusFile[] {
  return [
    plantedFile('etc/ssl/private/legacy-rsa.key', (s) => s.block('pem_rsa', K.rsaPrivate(rng))),
    plantedFile('etc/ssl/private/www.example.com.pem', (s) =>
      `# haproxy bundle: key then chain\n${s.block('pem_pkcs8', K.pkcs8Private(rng))}${K.certificate(rng).text}${K.certificate(rng, 1100).text}`),
    plantedFile('etc/ssl/private/ec-p256.key', (s) =>
      `-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n${s.block('pem_ec', K.ecPrivate(rng))}`),
    plantedFile('etc/pki/tls/private/vpn-encrypted.pem', (s) => `Bag Attributes\n    friendlyName: vpn\n${s.block('pem_encrypted', K.encryptedPkcs8(rng))}`),
    plantedFile('root/old-keys/dsa-1024.pem', (s) => s.block('pem_dsa', K.dsaPrivate(rng))),
    plantedFile('root/old-keys/rsa-des3.pem', (s) => s.block('pem_rsa_encrypted', K.legacyEncryptedRsa(rng))),
    plantedFile('etc/ldap/slapd.key.rsa4096', (s) => s.block('pem_rsa', K.rsaPrivate(rng, 4096))),
    plantedFile('home/alice/.ssh/id_ed25519', (s) => s.block('openssh_private', K.opensshPrivate(rng, 'ed25519', false, 'alice@laptop'))),
    plantedFile('home/deploy/.ssh/id_rsa', (s) => s.block('openssh_private', K.opensshPrivate(rng, 'rsa', true, 'deploy@ci'))),
    plantedFile('etc/ssh/ssh_host_ed25519_key', (s) => s.block('openssh_private', K.opensshPrivate(rng, 'ed25519', false, 'root@web01'))),
    plantedFile('root/backup-signing-secret.asc', (s) =>
      s.block('pgp_private', K.pgpBlock(rng, 'PRIVATE KEY', 1200)).replace('\n\n', '\nComment: backup signing key 2026\n\n')),
    plantedFile('etc/app/gcp-service-account.json', (s) => {
      const key = K.pkcs8Private(rng);
      return JSON.stringify({
        type: 'service_account',
        project_id: 'acme-prod-31337',
        private_key_id: rng.hex(40),
        private_key: '@KEY@',
        client_email: 'backup-writer@acme-prod-31337.iam.gserviceaccount.com',
        client_id: rng.str('0123456789', 21),
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: 'https://oauth2.googleapis.com/token',
        auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
        client_x509_cert_url: 'https://www.googleapis.com/robot/v1/metadata/x509/backup-writer%40acme-prod-31337.iam.gserviceaccount.com',
        universe_domain: 'googleapis.com',
      }, null, 2).replace('@KEY@', jsonEscapedKey(s, 'gcp_private_key', key)) + '\n';
    }),
    plantedFile('var/lib/vault/unseal-bundle.json', (s) =>
      `{"keys":[],"tls":{"cert":"/etc/vault/tls.crt","key_pem":"${jsonEscapedKey(s, 'pem_rsa_json', K.rsaPrivate(rng))}"},` +
      `"ssh":{"ca_private_key":"${jsonEscapedKey(s, 'openssh_private_json', K.opensshPrivate(rng, 'ed25519', false, 'vault-ca'))}"}}\n`),
    plantedFile('home/alice/.aws/credentials', (s) =>
      `[default]\naws_access_key_id = ${s('aws_access_key_id', T.awsKeyId(rng))}\naws_secret_access_key = ${s('aws_secret_access_key', T.awsSecret(rng))}\nregion = eu-west-1\n\n` +
      `[backup]\naws_access_key_id=${s('aws_access_key_id', T.awsKeyId(rng))}\naws_secret_access_key=${s('aws_secret_access_key', T.awsSecret(rng))}\n\n` +
      `[sso-temp]\naws_access_key_id = ${s('aws_access_key_id', T.awsKeyId(rng, 'ASIA'))}\naws_secret_access_key = ${s('aws_secret_access_key', T.awsSecret(rng))}\n` +
      `aws_session_token = ${s('aws_session_token', T.awsSessionToken(rng))}\nexpiration = 2026-12-01T18:00:00Z\n`),
    plantedFile('etc/backup/s3.json', (s) =>
      JSON.stringify({ bucket: 'acme-backups', region: 'us-east-1', credentials: { AccessKeyId: s('aws_access_key_id', T.awsKeyId(rng)), SecretAccessKey: s('aws_secret_access_key', T.awsSecret(rng)) } }, null, 4) + '\n'),
    plantedFile('aws sts get-session-token', (s) =>
      JSON.stringify({ Credentials: { AccessKeyId: s('aws_access_key_id', T.awsKeyId(rng, 'ASIA')), SecretAccessKey: s('aws_secret_access_key', T.awsSecret(rng)),
        SessionToken: s('aws_session_token', T.awsSessionToken(rng)), Expiration: '2026-12-02T05:13:10+00:00' } }, null, 4) + '\n'),
    plantedFile('srv/blobsync/appsettings.Production.json', (s) => {
      const acct = 'stacmeprod01';
      return JSON.stringify({
        Logging: { LogLevel: { Default: 'Information' } },
        ConnectionStrings: {
          Storage: `DefaultEndpointsProtocol=https;AccountName=${acct};AccountKey=${s('azure_account_key', T.azureAccountKey(rng))};EndpointSuffix=core.windows.net`,
          Sql: `Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=orders;User ID=orders_app;Password=${s('connection_string_password', T.password(rng, 18))};Encrypt=True;`,
          Bus: `Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${s('azure_shared_access_key', rng.bytes(32).toString('base64'))}`,
        },
        Backup: { ContainerSasUrl: `https://${acct}.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-12-31T23:59:59Z&st=2026-01-01T00:00:00Z&spr=https&sig=${s('azure_sas_sig', T.azureSasSig(rng))}` },
      }, null, 2) + '\n';
    }),
    plantedFile('az storage container generate-sas', (s) => `"se=2026-12-08&sp=rl&sv=2022-11-02&sr=c&sig=${s('azure_sas_sig', T.azureSasSig(rng))}"\n`),
    plantedFile('etc/shadow', (s) => {
      const lines = [
        'root:' + s('shadow_yescrypt', K.shadowHash(rng, 'y')) + ':20050:0:99999:7:::',
        'daemon:*:19900:0:99999:7:::', 'bin:*:19900:0:99999:7:::', 'sys:*:19900:0:99999:7:::', 'www-data:*:19900:0:99999:7:::',
        'nobody:*:19900:0:99999:7:::', 'systemd-network:!*:19900::::::', 'sshd:!:19900::::::', 'messagebus:!:19900::::::',
        'alice:' + s('shadow_sha512crypt', K.shadowHash(rng, '6')) + ':20011:0:99999:7:::',
        'bob:' + s('shadow_sha256crypt', K.shadowHash(rng, '5')) + ':19988:0:99999:7:::',
        'carol:' + s('shadow_bcrypt', K.shadowHash(rng, '2b')) + ':19870:0:99999:7:::',
        'legacy:' + s('shadow_md5crypt', K.shadowHash(rng, '1')) + ':17001:0:99999:7:::',
        'dave:!' + s('shadow_locked_hash', K.shadowHash(rng, 'y')) + ':20040:0:99999:7:::',
        'postgres:!:19901::::::', 'deploy:' + s('shadow_yescrypt', K.shadowHash(rng, 'y')) + ':20055:0:99999:7:::',
      ];
      return lines.join('\n') + '\n';
    }),
    plantedFile('getent shadow alice', (s) => `alice:${s('shadow_sha512crypt', K.shadowHash(rng, '6'))}:20011:0:99999:7:::\n`),
    plantedFile('etc/nginx/.htpasswd', (s) =>
      `admin:${s('htpasswd_bcrypt', K.shadowHash(rng, '2b').replace('$2b$', '$2y$'))}\nmetrics:${s('htpasswd_md5', '$apr1$' + rng.str('./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 8) + '$' + rng.str('./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 22))}\n`),
  ];
}
