/**
 * Ordinary outputs, part 3: configuration whose names say password, token, key or secret but whose values are
 * settings, placeholders or references (a path, ${VAR}, {{ var }}, <redacted>, an empty string). Masking any of these
 * hides what an administrator needs to read.
 */
import { ordinary } from './corpus-ordinary-public.js';
import type { Rng } from './corpus-random.js';
import type { CorpusFile } from './secret-corpus.js';

const SSHD = `Include /etc/ssh/sshd_config.d/*.conf
#Port 22
#AddressFamily any
#ListenAddress 0.0.0.0
#HostKey /etc/ssh/ssh_host_rsa_key
#HostKey /etc/ssh/ssh_host_ecdsa_key
HostKey /etc/ssh/ssh_host_ed25519_key
#RekeyLimit default none
#SyslogFacility AUTH
#LogLevel INFO
#LoginGraceTime 2m
PermitRootLogin prohibit-password
#StrictModes yes
MaxAuthTries 3
#MaxSessions 10
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys .ssh/authorized_keys2
#AuthorizedPrincipalsFile none
#AuthorizedKeysCommand none
#AuthorizedKeysCommandUser nobody
#HostbasedAuthentication no
#IgnoreUserKnownHosts no
#IgnoreRhosts yes
PasswordAuthentication no
PermitEmptyPasswords no
KbdInteractiveAuthentication no
ChallengeResponseAuthentication no
#KerberosAuthentication no
#KerberosOrLocalPasswd yes
#KerberosTicketCleanup yes
#GSSAPIAuthentication no
#GSSAPICleanupCredentials yes
UsePAM yes
#AllowAgentForwarding yes
AllowTcpForwarding no
X11Forwarding no
PrintMotd no
#PermitUserEnvironment no
#Compression delayed
ClientAliveInterval 300
#UseDNS no
#PidFile /run/sshd.pid
#PermitTunnel no
AcceptEnv LANG LC_*
Subsystem\tsftp\t/usr/lib/openssh/sftp-server
TrustedUserCAKeys /etc/ssh/ca.pub
RevokedKeys /etc/ssh/revoked_keys
HostCertificate /etc/ssh/ssh_host_ed25519_key-cert.pub
KexAlgorithms sntrup761x25519-sha512@openssh.com,curve25519-sha256,curve25519-sha256@libssh.org
Ciphers chacha20-poly1305@openssh.com,aes256-gcm@openssh.com
MACs hmac-sha2-512-etm@openssh.com,hmac-sha2-256-etm@openssh.com
Match User backup
\tPasswordAuthentication no
\tForceCommand internal-sftp
\tAuthenticationMethods publickey`;

const PAM = `# /etc/pam.d/common-password - password-related modules common to all services
password\trequisite\t\t\tpam_pwquality.so retry=3 minlen=12 difok=3
password\t[success=1 default=ignore]\tpam_unix.so obscure use_authtok try_first_pass yescrypt
password\trequisite\t\t\tpam_deny.so
password\trequired\t\t\tpam_permit.so
password\toptional\tpam_gnome_keyring.so
# /etc/pam.d/common-auth
auth\t[success=1 default=ignore]\tpam_unix.so nullok
auth\trequisite\t\t\tpam_deny.so
auth\trequired\t\t\tpam_permit.so
auth\toptional\t\t\tpam_cap.so
auth\trequired pam_faillock.so preauth silent audit deny=5 unlock_time=900
# /etc/pam.d/sshd
@include common-auth
account    required     pam_nologin.so
@include common-account
session [success=ok ignore=ignore module_unknown=ignore default=bad]        pam_selinux.so close
session    required     pam_loginuid.so
session    optional     pam_keyinit.so force revoke
@include common-session
session    optional     pam_motd.so  motd=/run/motd.dynamic
session    required     pam_limits.so
session    required     pam_env.so user_readenv=1 envfile=/etc/default/locale
@include common-password
# /etc/pam.d/sudo
auth       required   pam_u2f.so authfile=/etc/u2f_mappings cue
auth       sufficient pam_google_authenticator.so secret=/var/lib/google-authenticator/\${USER} user=root nullok
# /etc/security/pwquality.conf
minlen = 12
dcredit = -1
ucredit = -1
# dictcheck = 1
usercheck = 1
enforce_for_root`;

const LOGIN_DEFS = `MAIL_DIR        /var/mail
FAILLOG_ENAB\t\tyes
LOG_OK_LOGINS\t\tno
SYSLOG_SU_ENAB\t\tyes
FTMP_FILE\t/var/log/btmp
SU_NAME\t\tsu
HUSHLOGIN_FILE\t.hushlogin
ENV_SUPATH\tPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ENV_PATH\tPATH=/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games
TTYGROUP\ttty
TTYPERM\t\t0600
ERASECHAR\t0177
KILLCHAR\t025
UMASK\t\t022
PASS_MAX_DAYS\t99999
PASS_MIN_DAYS\t0
PASS_WARN_AGE\t7
PASS_MIN_LEN\t12
UID_MIN\t\t\t 1000
UID_MAX\t\t\t60000
SYS_UID_MAX\t\t  999
GID_MIN\t\t\t 1000
LOGIN_RETRIES\t\t5
LOGIN_TIMEOUT\t\t60
CHFN_RESTRICT\t\trwh
DEFAULT_HOME\tyes
USERGROUPS_ENAB yes
ENCRYPT_METHOD YESCRYPT
YESCRYPT_COST_FACTOR 5
SHA_CRYPT_MIN_ROUNDS 5000
# nsswitch.conf
passwd:         files systemd
group:          files systemd
shadow:         files systemd
gshadow:        files systemd
hosts:          files mdns4_minimal [NOTFOUND=return] dns
networks:       files
protocols:      db files
services:       db files
netgroup:       nis`;

/** Placeholders and references in every syntax: the names say secret, the values do not hold one. */
const PLACEHOLDERS = `# docker-compose.yml
services:
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: \${POSTGRES_PASSWORD}
      POSTGRES_PASSWORD_FILE: /run/secrets/db_password
      MYSQL_ROOT_PASSWORD: "\${MYSQL_ROOT_PASSWORD:?set it in .env}"
      REDIS_PASSWORD: \${REDIS_PASSWORD:-}
    secrets:
      - db_password
secrets:
  db_password:
    file: ./secrets/db_password.txt
# kubernetes deployment
        env:
          - name: DB_PASSWORD
            valueFrom:
              secretKeyRef:
                name: db-secret
                key: password
          - name: API_TOKEN
            valueFrom:
              secretKeyRef: {name: api, key: token}
          - name: TOKEN_PATH
            value: /var/run/secrets/kubernetes.io/serviceaccount/token
        volumeMounts:
          - name: tls
            mountPath: /etc/tls
            secretName: orders-tls
# ansible
db_password: "{{ vault_db_password }}"
api_token: "{{ lookup('community.hashi_vault.hashi_vault', 'secret=kv/data/orders:token') }}"
become_pass: "{{ lookup('env', 'BECOME_PASS') }}"
# application.yml
spring:
  datasource:
    password: \${DB_PASSWORD}
    hikari:
      max-lifetime: 1800000
  security:
    oauth2:
      client:
        registration:
          github:
            client-secret: \${GITHUB_CLIENT_SECRET}
app:
  jwt:
    secret: \${JWT_SECRET:}
    token-validity-seconds: 3600
    refresh-token-validity-seconds: 2592000
  password-reset:
    token-lifetime: 15m
    max-attempts: 5
# .env.example
DB_PASSWORD=
API_KEY=<your-api-key>
OPENAI_API_KEY=sk-...
PASSWORD_FILE=/run/secrets/db
token_file=/etc/app/token
# generic config
password = <redacted>
password: '********'
secret: ""
secret_key: null
api_key: ~
client_secret = ""
auth_token = "\${env:AUTH_TOKEN}"
private_key = "/etc/ssl/private/orders.key"
private_key_path = /etc/app/keys/signing.pem
private_key_file: /etc/app/keys/jwt.pem
ssl_key_file = '/etc/ssl/private/ssl-cert-snakeoil.key'
ssl_cert_file = '/etc/ssl/certs/ssl-cert-snakeoil.pem'
key_file = /etc/wireguard/private.key
credentials_file = /root/.aws/credentials
credentials: /etc/app/credentials.json
secret_path = "kv/data/orders"
password_command = "pass show orders/db"
token_lifetime = 3600
token_ttl: 24h
token_type: bearer
token_endpoint: https://auth.example.com/oauth2/token
password_min_length: 12
password_hash_algorithm = argon2id
password_reset_enabled = true
key_size=4096
key_type = ed25519
keyserver hkps://keys.openpgp.org
api_key_header: X-Api-Key
api_key_required: true
secret_rotation_days: 90
passwd_file = /etc/passwd
pwd_check = strict
psk_length = 64
psk_file = /etc/swanctl/psk.d/site-b.secret
# systemd
[Service]
LoadCredential=db-password:/etc/orders/db-password
LoadCredentialEncrypted=api-token
Environment=PASSWORD_FILE=%d/db-password
Environment="TOKEN_FILE=/run/credentials/orders.service/api-token" "KEY_SIZE=4096"
EnvironmentFile=-/etc/default/orders
# netplan
network:
  wifis:
    wlp2s0:
      access-points:
        "Open-Guest": {}
        "Corp":
          auth:
            key-management: eap
            method: tls
            identity: "host/web01.example.com"
            ca-certificate: /etc/ssl/certs/corp-ca.pem
            client-certificate: /etc/ssl/certs/web01.pem
            client-key: /etc/ssl/private/web01.key
# wpa_supplicant
network={
\tssid="Corp"
\tkey_mgmt=WPA-EAP
\teap=TLS
\tidentity="host/web01"
\tclient_cert="/etc/ssl/certs/web01.pem"
\tprivate_key="/etc/ssl/private/web01.key"
\tprivate_key_passwd_file=/etc/wpa_supplicant/key.pass
}
# postgresql.conf
password_encryption = scram-sha-256
ssl = on
ssl_passphrase_command = '/usr/local/bin/get-ssl-passphrase'
ssl_passphrase_command_supports_reload = off
authentication_timeout = 1min
krb_server_keyfile = 'FILE:/etc/postgresql/krb5.keytab'
# pg_hba.conf
host    all             all             10.0.0.0/8              scram-sha-256
hostssl replication     replicator      10.0.0.6/32             scram-sha-256
local   all             postgres                                peer
# redis.conf
# requirepass foobared
# masterauth <master-password>
acllog-max-len 128
# php.ini
session.use_strict_mode = 1
mysqli.default_pw =
# my.cnf
[mysqld]
default_authentication_plugin=caching_sha2_password
validate_password.length=12
validate_password.policy=MEDIUM
# nginx
auth_basic "Restricted";
auth_basic_user_file /etc/nginx/.htpasswd;
ssl_password_file /etc/nginx/ssl.pass;
ssl_session_tickets off;
ssl_session_ticket_key /etc/nginx/ticket.key;
proxy_set_header Authorization $http_authorization;
proxy_set_header X-Api-Key $http_x_api_key;
# grafana.ini
[security]
admin_password = $__file{/etc/grafana/admin_password}
secret_key = $__env{GF_SECRET_KEY}
# terraform
variable "db_password" {
  type      = string
  sensitive = true
}
password = var.db_password
token    = data.vault_generic_secret.api.data["token"]`;

export function configOrdinaryFiles(rng: Rng): CorpusFile[] {
  const files: CorpusFile[] = [];
  const split = (t: string) => t.split('\n');
  files.push(ordinary('etc/ssh/sshd_config', split(SSHD)), ordinary('etc/pam.d (common-password, common-auth, sshd, sudo)', split(PAM)));
  files.push(ordinary('etc/login.defs and nsswitch.conf', split(LOGIN_DEFS)), ordinary('placeholders and references', split(PLACEHOLDERS)));
  const system = ['root', 'daemon', 'bin', 'sys', 'sync', 'games', 'man', 'lp', 'mail', 'news', 'uucp', 'proxy', 'www-data', 'backup', 'list', 'irc', '_apt', 'nobody',
    'systemd-network', 'systemd-timesync', 'messagebus', 'sshd', 'polkitd', 'postgres', 'redis', 'tss', 'dnsmasq', 'avahi', 'colord', 'pulse', 'rtkit'];
  const humans = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'deploy', 'ci'];
  files.push(ordinary('etc/passwd', [...system.map((u, i) => `${u}:x:${i === 0 ? 0 : i < 18 ? i : 100 + i}:${i === 0 ? 0 : i < 18 ? i : 65534}:${u}:/${i === 0 ? 'root' : 'nonexistent'}:${i === 0 ? '/bin/bash' : '/usr/sbin/nologin'}`),
    ...humans.map((u, i) => `${u}:x:${1000 + i}:${1000 + i}:${u.charAt(0).toUpperCase()}${u.slice(1)},,,:/home/${u}:/bin/bash`)]));
  files.push(ordinary('etc/shadow (locked accounts only)', [...system.map((u, i) => `${u}:${['*', '!', '!*', '!!'][i % 4]}:${19900 + i}:0:99999:7:::`), ...humans.map((u) => `${u}:!:20011:0:99999:7:::`), `nopass::20011:0:99999:7:::`]));
  files.push(ordinary('etc/group', [...system.map((u, i) => `${u}:x:${i}:`), 'sudo:x:27:alice,bob', 'shadow:x:42:', 'airlock-approvers:x:990:alice,carol', ...humans.map((u, i) => `${u}:x:${1000 + i}:`)]));
  files.push(ordinary('etc/gshadow', [...system.map((u) => `${u}:*::`), 'sudo:*::alice,bob', 'shadow:*::', ...humans.map((u) => `${u}:!::`)]));
  files.push(ordinary('chage -l alice', ['Last password change\t\t\t\t\t: Nov 30, 2026', 'Password expires\t\t\t\t\t: never', 'Password inactive\t\t\t\t\t: never',
    'Account expires\t\t\t\t\t\t: never', 'Minimum number of days between password change\t\t: 0', 'Maximum number of days between password change\t\t: 99999', 'Number of days of warning before password expires\t: 7']));
  files.push(ordinary('passwd -S -a', [...system, ...humans].map((u) => `${u} ${rng.pick(['L', 'P', 'NP', 'L'])} 11/30/2026 0 99999 7 -1`)));
  files.push(ordinary('sysctl -a (excerpt)', ['kernel.random.boot_id = ' + rng.uuid(), `kernel.random.uuid = ${rng.uuid()}`, 'kernel.keys.maxkeys = 200', 'kernel.keys.maxbytes = 20000',
    'kernel.keys.root_maxkeys = 1000000', 'kernel.keys.persistent_keyring_expiry = 259200', 'net.ipv4.tcp_fastopen_key = 00000000-00000000-00000000-00000000', 'net.ipv4.tcp_syncookies = 1',
    'kernel.kptr_restrict = 1', 'kernel.randomize_va_space = 2', 'fs.protected_symlinks = 1', 'vm.swappiness = 60']));
  files.push(ordinary('keyctl show @u', ['Keyring', ` ${rng.range(100000000, 999999999)} --alswrv   1000  1000  keyring: _uid.1000`, ` ${rng.range(100000000, 999999999)} --alswrv   1000  1000   \\_ user: invocation_id`,
    ` ${rng.range(100000000, 999999999)} --als-rv      0     0   \\_ asymmetric: Debian Secure Boot CA: ${rng.hex(40)}`]));
  files.push(ordinary('wg show', ['interface: wg0', `  public key: ${rng.bytes(32).toString('base64')}`, '  private key: (hidden)', '  listening port: 51820', '',
    `peer: ${rng.bytes(32).toString('base64')}`, `  endpoint: 203.0.113.20:51820`, '  allowed ips: 10.8.0.2/32', '  latest handshake: 1 minute, 2 seconds ago', '  transfer: 1.21 MiB received, 3.40 MiB sent']));
  return files;
}
