/**
 * The blind corpus: real-shaped secrets planted in ordinary admin output, and ordinary admin
 * output with no secret in it, written from public format documentation by an author who never
 * read the masker (see README.md). Deterministic: the same seed gives the same bytes.
 *
 * KINDS (seed 1): 107 kinds, 667 planted values in 577 files; 100 ordinary files of 4052 non-empty lines.
 * kind                                planted values
 *   k3s-token                         6
 *   kubeadm-bootstrap-token           9
 *   kubeadm-certificate-key           6
 *   docker-swarm-join-token           6
 *   elastic-enrollment-token          6
 *   consul-gossip-key                 6
 *   consul-acl-token                  6
 *   vault-service-token               8
 *   vault-batch-token                 6
 *   vault-legacy-token                6
 *   vault-unseal-key                  10
 *   docker-config-auth                6
 *   gitlab-pat                        6
 *   gitlab-runner-token               6
 *   github-classic-pat                6
 *   github-oauth-token                6
 *   github-fine-grained-pat           6
 *   npm-token                         6
 *   pypi-token                        6
 *   snmp-community                    6
 *   snmpv3-auth-pass                  6
 *   snmpv3-priv-pass                  6
 *   ntp-symmetric-key                 6
 *   chrony-key                        6
 *   postfix-sasl-password             6
 *   msmtp-password                    6
 *   otp-recovery-code                 18
 *   totp-uri-secret                   6
 *   totp-raw-seed                     6
 *   synapse-signing-key               6
 *   synapse-registration-secret       6
 *   synapse-macaroon-secret           6
 *   synapse-form-secret               6
 *   mattermost-salt                   6
 *   mattermost-at-rest-key            6
 *   rocketchat-admin-pass             6
 *   aws-access-key-id                 6
 *   aws-secret-access-key             6
 *   azure-storage-account-key         6
 *   azure-sas-signature               6
 *   gcs-hmac-secret                   6
 *   gcp-service-account-private-key   6
 *   gcp-api-key                       6
 *   crypt-md5                         6
 *   crypt-sha256                      7
 *   crypt-sha512                      6
 *   crypt-yescrypt                    6
 *   crypt-bcrypt                      6
 *   argon2id-hash                     6
 *   crypt-scrypt                      7
 *   htpasswd-sha1                     6
 *   htpasswd-apr1                     6
 *   postgres-scram-verifier           6
 *   k8s-secret-data                   8
 *   k8s-secret-stringdata             6
 *   kubeconfig-client-key-data        6
 *   kubeconfig-token                  6
 *   wpa-supplicant-psk                6
 *   networkmanager-psk                6
 *   hostapd-passphrase                6
 *   eap-password                      6
 *   password-ini                      6
 *   password-yaml                     6
 *   password-json                     6
 *   password-xml-attribute            6
 *   password-xml-element              6
 *   password-dotenv                   6
 *   password-toml                     6
 *   cli-password-flag                 6
 *   mysql-p-flag                      6
 *   pgpassword-env                    6
 *   sshpass-flag                      6
 *   curl-user-flag                    6
 *   postgres-url-password             6
 *   mongodb-srv-password              6
 *   redis-url-password                6
 *   mysql-url-password                6
 *   amqp-url-password                 6
 *   jdbc-password                     6
 *   odbc-pwd                          6
 *   http-bearer-token                 6
 *   http-basic-credentials            6
 *   url-api-key-param                 6
 *   url-token-param                   6
 *   x-api-key-header                  6
 *   pem-rsa-private-key               6
 *   pem-ec-private-key                6
 *   pem-pkcs8-private-key             6
 *   openssh-private-key               6
 *   wireguard-private-key             6
 *   wireguard-preshared-key           6
 *   openvpn-static-key                6
 *   slack-bot-token                   6
 *   slack-webhook-secret              6
 *   stripe-secret-key                 6
 *   twilio-auth-token                 6
 *   sendgrid-api-key                  6
 *   jwt                               6
 *   telegram-bot-token                6
 *   ldap-bindpw                       6
 *   redis-requirepass                 6
 *   mysql-mycnf-password              6
 *   pgpass-password                   6
 *   rclone-obscured-pass              6
 *   restic-password                   6
 *   borg-passphrase                   6
 *   ansible-vault-password            6
 */
import { Rng } from './rng.js';
import { inTranscript } from './transcript.js';
import type { KindSpec, OrdinaryFile, OrdinarySpec, PlantedFile } from './types.js';
import { clusterSpecs } from './cluster.js';
import { aclSpecs } from './acl.js';
import { registrySpecs } from './registry.js';
import { netsvcSpecs } from './netsvc.js';
import { otpSpecs } from './otp.js';
import { chatSpecs } from './chat.js';
import { cloudSpecs } from './cloud.js';
import { hashSpecs } from './hashes.js';
import { k8sSpecs } from './k8s.js';
import { wifiSpecs } from './wifi.js';
import { assignSpecs } from './assign.js';
import { cliSpecs } from './cli.js';
import { connstrSpecs } from './connstr.js';
import { httpSpecs } from './http.js';
import { keySpecs } from './keys.js';
import { saasSpecs } from './saas.js';
import { serviceSpecs } from './services.js';
import { ordinaryHostSpecs } from './ordinary-host.js';
import { ordinaryConfigSpecs } from './ordinary-config.js';
import { ordinaryDevSpecs } from './ordinary-dev.js';
import { ordinaryNetSpecs } from './ordinary-net.js';

export type { PlantedFile, OrdinaryFile, Secret } from './types.js';

export const KIND_SPECS: readonly KindSpec[] = [...clusterSpecs, ...aclSpecs, ...registrySpecs, ...netsvcSpecs, ...otpSpecs, ...chatSpecs, ...cloudSpecs, ...hashSpecs,
  ...k8sSpecs, ...wifiSpecs, ...assignSpecs, ...cliSpecs, ...connstrSpecs, ...httpSpecs, ...keySpecs, ...saasSpecs, ...serviceSpecs];

const ORDINARY_SPECS: readonly OrdinarySpec[] = [...ordinaryHostSpecs, ...ordinaryConfigSpecs, ...ordinaryDevSpecs, ...ordinaryNetSpecs];

/** Each generator is run until its own kind has this many planted values (files hold 1..10). */
export const PER_KIND = 6;
export const ORDINARY_FILES = 100;

export function blindCorpus(seed = 1): { planted: PlantedFile[]; ordinary: OrdinaryFile[] } {
  const r = new Rng(seed);
  const planted: PlantedFile[] = [];
  for (const spec of KIND_SPECS) {
    const own = spec.kinds[0]!;
    let count = 0;
    for (let n = 1; count < PER_KIND; n++) {
      const file = inTranscript(r, spec.make(r));
      count += file.secrets.filter((s) => s.kind === own).length;
      planted.push({ ...file, name: `${own} #${n}: ${file.name}` });
    }
  }
  const ordinary: OrdinaryFile[] = [];
  for (let i = 0; i < ORDINARY_FILES; i++) {
    const spec = ORDINARY_SPECS[i % ORDINARY_SPECS.length]!;
    ordinary.push({ name: `ordinary #${i + 1}: ${spec.name}`, text: spec.make(r) });
  }
  return { planted, ordinary };
}

/** kind -> number of planted values, in first-seen order. */
export function kindCounts(planted: readonly PlantedFile[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of planted) for (const s of f.secrets) counts.set(s.kind, (counts.get(s.kind) ?? 0) + 1);
  return counts;
}
