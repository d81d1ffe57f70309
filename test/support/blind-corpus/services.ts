/** Daemon credentials: LDAP bind, Redis, MySQL client files, .pgpass, rclone, restic, borg, Ansible vault. */
import { B64URL } from './rng.js';
import type { KindSpec } from './types.js';
import { fqdn, ip, lsLine, text, user } from './context.js';

const ldap: KindSpec = {
  kinds: ['ldap-bindpw'],
  make(r) {
    const v = r.password();
    const shape = r.int(0, 2);
    if (shape === 0) {
      return { name: 'cat /etc/nslcd.conf', secrets: [{ kind: 'ldap-bindpw', value: v }],
        text: text(['# /etc/nslcd.conf', 'uid nslcd', 'gid nslcd', `uri ldaps://${fqdn(r)}/`, 'base dc=example,dc=com', 'binddn cn=nslcd,ou=services,dc=example,dc=com', `bindpw ${v}`,
          'tls_reqcert demand', 'tls_cacertfile /etc/ssl/certs/ca-certificates.crt']) };
    }
    if (shape === 1) {
      return { name: 'cat /etc/sssd/sssd.conf', secrets: [{ kind: 'ldap-bindpw', value: v }],
        text: text(['[sssd]', 'services = nss, pam', 'domains = EXAMPLE', '', '[domain/EXAMPLE]', 'id_provider = ldap', 'auth_provider = ldap', `ldap_uri = ldaps://${fqdn(r)}`,
          'ldap_search_base = dc=example,dc=com', 'ldap_default_bind_dn = cn=sssd,ou=services,dc=example,dc=com', 'ldap_default_authtok_type = password', `ldap_default_authtok = ${v}`, 'cache_credentials = true']) };
    }
    return { name: 'history | grep ldapsearch', secrets: [{ kind: 'ldap-bindpw', value: v }],
      text: text([`  201  ldapsearch -x -H ldaps://${fqdn(r)} -D "cn=admin,dc=example,dc=com" -w ${v} -b "ou=people,dc=example,dc=com" "(uid=${user(r)})"`, '  202  history | grep ldapsearch']) };
  },
};

const redis: KindSpec = {
  kinds: ['redis-requirepass'],
  make(r) {
    const v = r.chance(0.5) ? r.password() : r.hex(64);
    const shape = r.int(0, 1);
    if (shape === 0) {
      return { name: 'grep -v "^#" /etc/redis/redis.conf | grep -v "^$" | head -20', secrets: [{ kind: 'redis-requirepass', value: v }],
        text: text([`bind 127.0.0.1 ${ip(r)}`, 'protected-mode yes', 'port 6379', 'tcp-backlog 511', 'timeout 0', 'tcp-keepalive 300', 'daemonize yes', 'supervised systemd',
          'pidfile /run/redis/redis-server.pid', 'loglevel notice', 'logfile /var/log/redis/redis-server.log', 'databases 16', `requirepass ${v}`, `masterauth ${v}`, 'maxmemory 2gb', 'maxmemory-policy allkeys-lru']) };
    }
    return { name: 'redis-cli CONFIG GET requirepass', secrets: [{ kind: 'redis-requirepass', value: v }], text: text(['1) "requirepass"', `2) "${v}"`]) };
  },
};

const mycnf: KindSpec = {
  kinds: ['mysql-mycnf-password'],
  make(r) {
    const v = r.password();
    if (r.chance(0.5)) {
      return { name: 'cat /etc/mysql/debian.cnf', secrets: [{ kind: 'mysql-mycnf-password', value: v }],
        text: text(['# Automatically generated for Debian scripts. DO NOT TOUCH!', '[client]', 'host     = localhost', 'user     = debian-sys-maint', `password = ${v}`, 'socket   = /var/run/mysqld/mysqld.sock',
          '[mysql_upgrade]', 'host     = localhost', 'user     = debian-sys-maint', `password = ${v}`, 'socket   = /var/run/mysqld/mysqld.sock']) };
    }
    return { name: 'cat /root/.my.cnf', secrets: [{ kind: 'mysql-mycnf-password', value: v }], text: text(['[client]', 'user=root', `password="${v}"`, '', '[mysqldump]', 'single-transaction', 'quick']) };
  },
};

const pgpass: KindSpec = {
  kinds: ['pgpass-password'],
  make(r) {
    const a = r.password();
    const b = r.password();
    return { name: 'cat ~/.pgpass', secrets: [{ kind: 'pgpass-password', value: a }, { kind: 'pgpass-password', value: b }],
      text: text(['# hostname:port:database:username:password', `${ip(r)}:5432:app:app:${a}`, `${fqdn(r)}:5432:*:replicator:${b}`]) };
  },
};

const rclone: KindSpec = {
  kinds: ['rclone-obscured-pass'],
  make(r) {
    const a = r.chars(B64URL, r.int(32, 60));
    const b = r.chars(B64URL, r.int(32, 60));
    return { name: 'cat ~/.config/rclone/rclone.conf', secrets: [{ kind: 'rclone-obscured-pass', value: a }, { kind: 'rclone-obscured-pass', value: b }],
      text: text(['[nas]', 'type = sftp', `host = ${ip(r)}`, `user = ${user(r)}`, `pass = ${a}`, 'shell_type = unix', 'md5sum_command = md5sum', '', '[nas-crypt]', 'type = crypt',
        'remote = nas:backup/encrypted', 'filename_encryption = standard', 'directory_name_encryption = true', `password = ${b}`]) };
  },
};

const restic: KindSpec = {
  kinds: ['restic-password'],
  make(r) {
    const v = r.password();
    if (r.chance(0.5)) {
      return { name: 'cat /etc/restic/env', secrets: [{ kind: 'restic-password', value: v }],
        text: text([`RESTIC_REPOSITORY=sftp:backup@${fqdn(r)}:/srv/restic/${r.pick(['web', 'db', 'home'])}`, `RESTIC_PASSWORD=${v}`, 'RESTIC_CACHE_DIR=/var/cache/restic', 'GOMAXPROCS=2']) };
    }
    return { name: 'ls -l /etc/restic; cat /etc/restic/password', secrets: [{ kind: 'restic-password', value: v }],
      text: text([lsLine(r, '-rw-------', 'root', 'password'), lsLine(r, '-rw-r--r--', 'root', 'excludes'), v]) };
  },
};

const borg: KindSpec = {
  kinds: ['borg-passphrase'],
  make(r) {
    const v = r.password();
    if (r.chance(0.5)) {
      return { name: 'systemctl cat borg-backup.service', secrets: [{ kind: 'borg-passphrase', value: v }],
        text: text(['# /etc/systemd/system/borg-backup.service', '[Unit]', 'Description=Borg backup', '', '[Service]', 'Type=oneshot', `Environment=BORG_REPO=ssh://borg@${fqdn(r)}/./repo`,
          `Environment="BORG_PASSPHRASE=${v}"`, 'ExecStart=/usr/local/bin/borg-run.sh', 'Nice=19', 'IOSchedulingClass=idle']) };
    }
    return { name: 'cat /etc/borgmatic/config.yaml', secrets: [{ kind: 'borg-passphrase', value: v }],
      text: text(['source_directories:', '    - /etc', '    - /home', '    - /var/lib/postgresql-dumps', 'repositories:', `    - path: ssh://borg@${fqdn(r)}/./main`, '      label: offsite',
        `encryption_passphrase: "${v}"`, 'keep_daily: 7', 'keep_weekly: 4', 'keep_monthly: 6', 'checks:', '    - name: repository', '    - name: archives', '      frequency: 2 weeks']) };
  },
};

const vaultPass: KindSpec = {
  kinds: ['ansible-vault-password'],
  make(r) {
    const v = r.chance(0.5) ? r.password() : r.b64(48);
    return { name: 'cat ansible.cfg; cat ~/.ansible/vault_pass.txt', secrets: [{ kind: 'ansible-vault-password', value: v }],
      text: text(['[defaults]', 'inventory = inventory/hosts.ini', 'vault_password_file = ~/.ansible/vault_pass.txt', 'host_key_checking = True', 'forks = 20', `remote_user = ${user(r)}`, '', '[ssh_connection]', 'pipelining = True', '---', v]) };
  },
};

export const serviceSpecs: KindSpec[] = [ldap, redis, mycnf, pgpass, rclone, restic, borg, vaultPass];
