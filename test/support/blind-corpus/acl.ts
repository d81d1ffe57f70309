/** Service ACL tokens: Consul ACL secret ids and HashiCorp Vault tokens and unseal keys. */
import { B64URL, type Rng } from './rng.js';
import type { KindSpec } from './types.js';
import { fqdn, host, iso, journal, text, user } from './context.js';

const consul: KindSpec = {
  kinds: ['consul-acl-token'],
  make(r) {
    const v = r.uuid();
    const shape = r.int(0, 2);
    if (shape === 0) {
      // AccessorID is a public id; only SecretID is the token.
      return { name: 'consul acl token read', secrets: [{ kind: 'consul-acl-token', value: v }],
        text: text([`AccessorID:       ${r.uuid()}`, `SecretID:         ${v}`, 'Partition:        default', 'Namespace:        default',
          `Description:      agent token for ${host(r)}`, 'Local:            false', `Create Time:      ${iso(r)}`,
          'Policies:', `   ${r.uuid()} - node-${host(r)}-write`]) };
    }
    if (shape === 1) {
      return { name: '/etc/consul.d/acl.hcl', secrets: [{ kind: 'consul-acl-token', value: v }],
        text: text(['acl {', '  enabled = true', '  default_policy = "deny"', '  enable_token_persistence = true', '  tokens {', `    agent = "${v}"`, '  }', '}']) };
    }
    return { name: 'systemctl show consul-template -p Environment', secrets: [{ kind: 'consul-acl-token', value: v }],
      text: text([`Environment=CONSUL_HTTP_ADDR=https://${fqdn(r)}:8501 CONSUL_HTTP_TOKEN=${v} CONSUL_CACERT=/etc/consul.d/ca.pem`]) };
  },
};

const vaultService = (r: Rng): string => r.chance(0.5) ? `hvs.${r.alnum(24)}` : `hvs.CAESI${r.chars(B64URL, r.int(86, 100))}`;

const service: KindSpec = {
  kinds: ['vault-service-token'],
  make(r) {
    const v = vaultService(r);
    const shape = r.int(0, 2);
    if (shape === 0) {
      return { name: 'vault login -method=userpass', secrets: [{ kind: 'vault-service-token', value: v }],
        text: text(['Success! You are now authenticated. The token information displayed below', 'is already stored in the token helper. You do NOT need to run "vault login"',
          'again. Future Vault requests will automatically use this token.', '', 'Key                    Value', '---                    -----',
          `token                  ${v}`, `token_accessor         ${r.alnum(24)}`, 'token_duration         768h', 'token_renewable        true',
          'token_policies         ["default" "ops"]', 'identity_policies      []', 'policies               ["default" "ops"]', `token_meta_username    ${user(r)}`]) };
    }
    if (shape === 1) return { name: 'cat ~/.vault-token', secrets: [{ kind: 'vault-service-token', value: v }], text: v };
    return { name: '/etc/vault-agent/env', secrets: [{ kind: 'vault-service-token', value: v }],
      text: text([`VAULT_ADDR=https://${fqdn(r)}:8200`, `VAULT_TOKEN=${v}`, 'VAULT_SKIP_VERIFY=false', 'VAULT_FORMAT=json']) };
  },
};

const batch: KindSpec = {
  kinds: ['vault-batch-token'],
  make(r) {
    const v = `hvb.AAAAAQ${r.chars(B64URL, r.int(120, 150))}`;
    if (r.chance(0.5)) {
      return { name: 'vault token create -type=batch -policy=ci', secrets: [{ kind: 'vault-batch-token', value: v }],
        text: text(['Key                  Value', '---                  -----', `token                ${v}`, 'token_accessor       n/a',
          'token_duration       20m', 'token_renewable      false', 'token_policies       ["ci" "default"]', 'identity_policies    []', 'policies             ["ci" "default"]']) };
    }
    return { name: 'journalctl -u vault-agent', secrets: [{ kind: 'vault-batch-token', value: v }],
      text: text([...journal(r, 3), `${iso(r)} [DEBUG] agent.auth.handler: received token: ${v}`, `${iso(r)} [INFO]  agent.sink.file: token written: path=/run/vault/token`, ...journal(r, 2)]) };
  },
};

const legacy: KindSpec = {
  kinds: ['vault-legacy-token'],
  make(r) {
    const v = `s.${r.alnum(24)}`;
    if (r.chance(0.5)) {
      return { name: 'crontab -l -u backup', secrets: [{ kind: 'vault-legacy-token', value: v }],
        text: text(['# m h  dom mon dow   command', 'MAILTO=ops@example.com', `VAULT_TOKEN=${v}`,
          '15 2 * * * /usr/local/bin/vault-snapshot.sh >> /var/log/vault-snapshot.log 2>&1', '0 4 * * 0 /usr/local/bin/prune-snapshots --keep 14']) };
    }
    return { name: 'vault token lookup', secrets: [{ kind: 'vault-legacy-token', value: v }],
      text: text(['Key                 Value', '---                 -----', `accessor            ${r.alnum(24)}`, `creation_time       ${r.int(1600000000, 1700000000)}`,
        'creation_ttl        0s', `display_name        token-${user(r)}`, `entity_id           ${r.uuid()}`, 'expire_time         <nil>', `id                  ${v}`,
        `issue_time          ${iso(r)}`, 'meta                <nil>', 'num_uses            0', 'orphan              false', 'path                auth/token/create', 'policies            [admin]', 'type                service']) };
  },
};

const unseal: KindSpec = {
  kinds: ['vault-unseal-key'],
  make(r) {
    const keys = Array.from({ length: 5 }, () => r.b64(32));
    const root = `hvs.${r.alnum(24)}`;
    return { name: 'vault operator init', secrets: [...keys.map((value) => ({ kind: 'vault-unseal-key', value })), { kind: 'vault-service-token', value: root }],
      text: text([...keys.map((k, i) => `Unseal Key ${i + 1}: ${k}`), '', `Initial Root Token: ${root}`, '',
        'Vault initialized with 5 key shares and a key threshold of 3. Please securely', 'distribute the key shares printed above. When the Vault is re-sealed,',
        'restarted, or stopped, you must supply at least 3 of these keys to unseal it', 'before it can start servicing requests.']) };
  },
};

export const aclSpecs: KindSpec[] = [consul, service, batch, legacy, unseal];
