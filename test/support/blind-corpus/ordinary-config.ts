/**
 * Secret-free configuration: example env files and Helm values with placeholders, configs that
 * read secrets from elsewhere (${VAR}, files), redacted output, nginx -T, sshd_config.
 */
import type { Rng } from './rng.js';
import type { OrdinarySpec } from './types.js';
import { domain, fqdn, ip, text } from './context.js';

const PLACEHOLDERS = ['changeme', '<password>', '${DB_PASSWORD}', '$DB_PASSWORD', '***', 'xxxxx', 'REDACTED', 'your-token-here', '<your-api-key>', 'CHANGE_ME',
  '${SECRET_KEY:?must be set}', '{{ .Values.password }}', '********', '<redacted>', 'replace-me', '""', 'null', '%(ENV_SMTP_PASS)s', '{{ vault_db_password }}', 'PLACEHOLDER'];
const ph = (r: Rng): string => r.pick(PLACEHOLDERS);

const envExample: OrdinarySpec = {
  name: 'cat .env.example',
  make(r) {
    return text(['# Copy to .env and fill in. Never commit the real .env.', '', '# --- app ---', 'APP_NAME=Shop', 'APP_ENV=local', 'APP_KEY=', 'APP_DEBUG=true', 'APP_URL=http://localhost:8000', '',
      '# --- database ---', 'DB_CONNECTION=pgsql', 'DB_HOST=127.0.0.1', 'DB_PORT=5432', 'DB_DATABASE=shop', 'DB_USERNAME=shop', `DB_PASSWORD=${ph(r)}`, '',
      '# --- cache/queue ---', 'REDIS_HOST=127.0.0.1', `REDIS_PASSWORD=${r.pick(['null', '', 'changeme'])}`, 'REDIS_PORT=6379', 'QUEUE_CONNECTION=redis', '',
      '# --- mail ---', 'MAIL_MAILER=smtp', 'MAIL_HOST=mailpit', 'MAIL_PORT=1025', 'MAIL_USERNAME=null', `MAIL_PASSWORD=${ph(r)}`, 'MAIL_ENCRYPTION=null', 'MAIL_FROM_ADDRESS="hello@example.com"', '',
      '# --- third parties ---', `STRIPE_KEY=pk_test_${'x'.repeat(24)}`, `STRIPE_SECRET=${r.pick(['sk_test_...', 'your-stripe-secret', '<stripe secret key>'])}`, `SENTRY_DSN=${r.pick(['', 'https://<key>@sentry.io/<project>'])}`,
      `GITHUB_TOKEN=${r.pick(['ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'your-token-here', '<token>'])}`, 'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE', `AWS_SECRET_ACCESS_KEY=${r.pick(['<secret>', 'changeme', 'xxxxx'])}`,
      'AWS_DEFAULT_REGION=us-east-1', 'AWS_BUCKET=', '', '# --- feature flags ---', 'FEATURE_NEW_CHECKOUT=false', 'FEATURE_BETA_SEARCH=true']);
  },
};

const helmValues: OrdinarySpec = {
  name: 'cat values.yaml',
  make(r) {
    return text(['# Default values for webapp.', 'replicaCount: 2', '', 'image:', '  repository: registry.example.com/webapp', '  pullPolicy: IfNotPresent', '  tag: ""', '',
      'imagePullSecrets:', '  - name: regcred', '', 'serviceAccount:', '  create: true', '  annotations: {}', '  name: ""', '', 'postgresql:', '  enabled: true', '  auth:',
      '    username: webapp', `    password: "${ph(r)}"`, '    database: webapp', '    # use an existing secret instead of the value above', '    existingSecret: webapp-db', '    secretKeys:',
      '      userPasswordKey: password', '', 'redis:', '  auth:', '    enabled: true', '    existingSecret: webapp-redis', '    existingSecretPasswordKey: redis-password', '',
      'env:', '  - name: DATABASE_PASSWORD', '    valueFrom:', '      secretKeyRef:', '        name: webapp-db', '        key: password', '  - name: SESSION_SECRET',
      '    valueFrom:', '      secretKeyRef:', '        name: webapp-session', '        key: secret', '', 'ingress:', '  enabled: true', '  className: nginx', '  hosts:',
      `    - host: app.${domain(r)}`, '      paths:', '        - path: /', '          pathType: Prefix', '  tls:', '    - secretName: webapp-tls', `      hosts: [app.${domain(r)}]`,
      '', 'resources:', '  limits:', '    cpu: 500m', '    memory: 512Mi']);
  },
};

const springVars: OrdinarySpec = {
  name: 'cat application.yml (env-driven)',
  make(r) {
    return text(['spring:', '  application:', '    name: billing', '  datasource:', '    url: ${DB_URL:jdbc:postgresql://localhost:5432/billing}', '    username: ${DB_USER:billing}',
      '    password: ${DB_PASSWORD}', '  rabbitmq:', `    host: rabbitmq.${domain(r)}`, '    username: ${RABBIT_USER}', '    password: ${RABBIT_PASSWORD}', '  mail:', '    host: smtp.example.com',
      '    port: 587', '    username: ${SMTP_USER}', '    password: ${SMTP_PASSWORD}', '    properties:', '      mail.smtp.auth: true', '      mail.smtp.starttls.enable: true', '',
      'security:', '  jwt:', '    secret: ${JWT_SECRET}', '    expiry: 3600', '  oauth2:', '    client-id: billing-service', '    client-secret: ${OAUTH_CLIENT_SECRET}', '',
      'logging:', '  level:', '    root: INFO', '    org.hibernate.SQL: WARN', '', 'management:', '  endpoint:', '    health:', '      show-details: when-authorized', '  endpoints:',
      '    web:', '      exposure:', '        include: health,info,prometheus', '', 'server:', '  port: 8080', '  shutdown: graceful']);
  },
};

const redacted: OrdinarySpec = {
  name: 'ansible-playbook site.yml (no_log) ; docker compose config (masked)',
  make(r) {
    const lines = ['PLAY [databases] ***************************************************************', '', 'TASK [Gathering Facts] *********************************************************'];
    for (const h of ['db-prod-1', 'db-replica-2']) lines.push(`ok: [${h}]`);
    lines.push('', 'TASK [postgresql : create application role] ************************************');
    for (const h of ['db-prod-1', 'db-replica-2']) lines.push(`changed: [${h}] => (item=None)`);
    lines.push('', 'TASK [postgresql : set role password] ******************************************',
      'ok: [db-prod-1] => {"censored": "the output has been hidden due to the fact that \'no_log: true\' was specified for this result", "changed": false}',
      '', 'TASK [app : render config] *****************************************************', '--- before: /etc/app/config.yml', '+++ after: /home/ops/.ansible/tmp/config.yml',
      '@@ -3,4 +3,4 @@', ' db:', '   host: db-prod-1', '-  password: VALUE_SPECIFIED_IN_NO_LOG_PARAMETER', '+  password: VALUE_SPECIFIED_IN_NO_LOG_PARAMETER', '',
      'PLAY RECAP *********************************************************************',
      `db-prod-1                  : ok=${r.int(10, 30)}   changed=${r.int(1, 5)}    unreachable=0    failed=0    skipped=${r.int(0, 9)}    rescued=0    ignored=0`,
      `db-replica-2               : ok=${r.int(10, 30)}   changed=${r.int(1, 5)}    unreachable=0    failed=0    skipped=${r.int(0, 9)}    rescued=0    ignored=0`, '',
      '$ docker compose config', 'name: monitoring', 'services:', '  grafana:', '    environment:', '      GF_SECURITY_ADMIN_PASSWORD__FILE: /run/secrets/grafana_admin',
      '      GF_SMTP_PASSWORD: "********"', '      GF_SERVER_ROOT_URL: https://grafana.example.com', '    image: grafana/grafana:11.3.0', '    secrets:', '      - source: grafana_admin',
      '        target: /run/secrets/grafana_admin', 'secrets:', '  grafana_admin:', '    file: ./secrets/grafana_admin.txt');
    return text(lines);
  },
};

const nginxT: OrdinarySpec = {
  name: 'nginx -T',
  make(r) {
    const d = domain(r);
    return text(['nginx: the configuration file /etc/nginx/nginx.conf syntax is ok', 'nginx: configuration file /etc/nginx/nginx.conf test is successful', '# configuration file /etc/nginx/nginx.conf:',
      'user www-data;', 'worker_processes auto;', 'pid /run/nginx.pid;', 'include /etc/nginx/modules-enabled/*.conf;', 'events {', '\tworker_connections 768;', '}', 'http {', '\tsendfile on;',
      '\ttcp_nopush on;', '\ttypes_hash_max_size 2048;', '\tinclude /etc/nginx/mime.types;', '\tdefault_type application/octet-stream;', '\tssl_protocols TLSv1.2 TLSv1.3;', '\tssl_prefer_server_ciphers off;',
      '\taccess_log /var/log/nginx/access.log;', '\terror_log /var/log/nginx/error.log;', '\tgzip on;', '\tinclude /etc/nginx/conf.d/*.conf;', '\tinclude /etc/nginx/sites-enabled/*;', '}', '',
      `# configuration file /etc/nginx/sites-enabled/${d}:`, 'server {', '    listen 443 ssl http2;', `    server_name ${d} www.${d};`, `    ssl_certificate /etc/letsencrypt/live/${d}/fullchain.pem;`,
      `    ssl_certificate_key /etc/letsencrypt/live/${d}/privkey.pem;`, '    ssl_session_tickets off;', '    add_header Strict-Transport-Security "max-age=63072000" always;',
      '    auth_basic "Restricted";', '    auth_basic_user_file /etc/nginx/.htpasswd;', '    location / {', `        proxy_pass http://${ip(r)}:8080;`, '        proxy_set_header Host $host;',
      '        proxy_set_header X-Real-IP $remote_addr;', '        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;', '        proxy_set_header Authorization $http_authorization;',
      '    }', '    location /static/ {', '        alias /srv/app/static/;', '        expires 30d;', '    }', '}', 'server {', '    listen 80;', `    server_name ${d};`, '    return 301 https://$host$request_uri;', '}']);
  },
};

const sshdConfig: OrdinarySpec = {
  name: 'sshd -T | sort | head -45',
  make(r) {
    return text(['acceptenv LANG LC_*', 'addressfamily any', 'allowagentforwarding yes', 'allowtcpforwarding no', `allowusers ops deploy`, 'authenticationmethods publickey',
      'authorizedkeyscommand none', 'authorizedkeysfile .ssh/authorized_keys .ssh/authorized_keys2', 'banner none', 'challengeresponseauthentication no',
      'ciphers chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr,aes128-gcm@openssh.com,aes256-gcm@openssh.com', 'clientalivecountmax 3', `clientaliveinterval ${r.pick([0, 300, 600])}`,
      'compression yes', 'disableforwarding no', 'gssapiauthentication no', 'hostbasedauthentication no', 'hostkey /etc/ssh/ssh_host_ecdsa_key', 'hostkey /etc/ssh/ssh_host_ed25519_key',
      'hostkey /etc/ssh/ssh_host_rsa_key', 'ignorerhosts yes', 'kbdinteractiveauthentication no', 'kerberosauthentication no',
      'kexalgorithms sntrup761x25519-sha512@openssh.com,curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256', 'listenaddress 0.0.0.0:22', 'logingracetime 120', 'loglevel INFO',
      'macs umac-64-etm@openssh.com,umac-128-etm@openssh.com,hmac-sha2-256-etm@openssh.com,hmac-sha2-512-etm@openssh.com', 'maxauthtries 3', 'maxsessions 10', 'maxstartups 10:30:100',
      'passwordauthentication no', 'permitemptypasswords no', 'permitrootlogin prohibit-password', 'permittty yes', 'port 22', 'printmotd no', 'pubkeyauthentication yes',
      'rekeylimit 0 0', 'strictmodes yes', 'subsystem sftp /usr/lib/openssh/sftp-server', 'syslogfacility AUTH', 'tcpkeepalive yes', 'usedns no', 'usepam yes', 'x11forwarding yes',
      `# host ${fqdn(r)}`]);
  },
};

const vaultStatus: OrdinarySpec = {
  name: 'vault status; consul members; kubectl describe secret',
  make(r) {
    return text(['Key                     Value', '---                     -----', 'Seal Type               shamir', 'Initialized             true', 'Sealed                  false',
      'Total Shares            5', 'Threshold               3', 'Version                 1.17.3', `Build Date              ${r.pick(['2024-08-06T14:28:45Z', '2024-10-09T16:51:27Z'])}`, 'Storage Type            raft',
      `Cluster Name            vault-cluster-${r.hex(8)}`, `Cluster ID              ${r.uuid()}`, 'HA Enabled              true', 'HA Cluster              https://10.0.1.10:8201',
      'HA Mode                 active', `Active Since            2026-11-2${r.int(0, 9)}T10:11:12.${r.int(100000, 999999)}Z`, `Raft Committed Index    ${r.int(10000, 99999)}`, `Raft Applied Index      ${r.int(10000, 99999)}`, '',
      'Node        Address           Status  Type    Build   Protocol  DC   Partition  Segment', `consul-1    10.0.1.10:8301    alive   server  1.19.2  2         dc1  default    <all>`,
      `consul-2    10.0.1.11:8301    alive   server  1.19.2  2         dc1  default    <all>`, `consul-3    10.0.1.12:8301    alive   server  1.19.2  2         dc1  default    <all>`, '',
      'Name:         webapp-db', 'Namespace:    prod', 'Labels:       app.kubernetes.io/managed-by=Helm', 'Annotations:  meta.helm.sh/release-name: webapp', '              meta.helm.sh/release-namespace: prod', '',
      'Type:  Opaque', '', 'Data', '====', `password:  ${r.int(16, 40)} bytes`, 'username:  6 bytes', `host:      ${r.int(20, 40)} bytes`, '',
      '$ vault kv metadata get secret/webapp', '======= Metadata Path =======', 'secret/metadata/webapp', '', '========== Metadata ==========', 'Key                     Value', '---                     -----',
      'cas_required            false', `created_time            ${r.pick(['2025-03-01T10:00:00.000000Z', '2025-07-14T09:12:00.000000Z'])}`, `current_version         ${r.int(2, 9)}`, 'max_versions            0']);
  },
};

export const ordinaryConfigSpecs: OrdinarySpec[] = [envExample, helmValues, springVars, redacted, nginxT, sshdConfig, vaultStatus];
