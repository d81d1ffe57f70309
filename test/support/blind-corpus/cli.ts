/** Secrets on command lines: --password flags, mysql -p, PGPASSWORD=, sshpass -p, curl -u. */
import type { KindSpec } from './types.js';
import { fqdn, ip, pid, text, user } from './context.js';

const PS_HEAD = 'USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND';
const psl = (u: string, p: number, cmd: string): string => `${u.padEnd(8)} ${String(p).padStart(7)}  0.${p % 10}  0.4 ${String(p % 90000 + 10000).padStart(6)} ${String(p % 9000 + 1000).padStart(5)} ?        Ss   07:0${p % 10}   0:00 ${cmd}`;

const flag: KindSpec = {
  kinds: ['cli-password-flag'],
  make(r) {
    const v = r.password();
    const cmd = r.pick([
      `/usr/bin/mongodump --host ${ip(r)} --username backup --password ${v} --authenticationDatabase admin --archive=/backup/mongo.gz --gzip`,
      `/usr/local/bin/restic-exporter --listen :9753 --repo-password=${v}`,
      `/usr/bin/influx -host ${ip(r)} -username admin -password ${v} -execute SHOW DATABASES`,
      `/opt/keycloak/bin/kc.sh start --db postgres --db-url-host ${ip(r)} --db-username keycloak --db-password ${v} --hostname ${fqdn(r)}`,
    ]);
    if (r.chance(0.5)) {
      return { name: 'ps auxww', secrets: [{ kind: 'cli-password-flag', value: v }],
        text: text([PS_HEAD, psl('root', 1, '/sbin/init'), psl('root', pid(r), '/usr/sbin/sshd -D'), psl(user(r), pid(r), cmd), psl('root', pid(r), '/usr/sbin/cron -f')]) };
    }
    return { name: 'systemctl show app.service -p ExecStart', secrets: [{ kind: 'cli-password-flag', value: v }],
      text: `ExecStart={ path=${cmd.split(' ')[0]} ; argv[]=${cmd} ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }\n` };
  },
};

const mysqlP: KindSpec = {
  kinds: ['mysql-p-flag'],
  make(r) {
    const v = r.password();
    return { name: r.pick(['crontab -l', 'cat /etc/cron.d/db-backup']), secrets: [{ kind: 'mysql-p-flag', value: v }],
      text: text(['SHELL=/bin/bash', 'PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin', '',
        `30 1 * * * root mysqldump -h ${ip(r)} -u backup -p${v} --single-transaction --routines shop | zstd > /backup/shop-$(date +\\%F).sql.zst`,
        '0 5 * * * root find /backup -name "*.sql.zst" -mtime +14 -delete']) };
  },
};

const pgpassword: KindSpec = {
  kinds: ['pgpassword-env'],
  make(r) {
    const v = r.password();
    if (r.chance(0.5)) {
      return { name: 'cat /usr/local/bin/pg-backup.sh', secrets: [{ kind: 'pgpassword-env', value: v }],
        text: text(['#!/bin/bash', 'set -euo pipefail', `export PGPASSWORD='${v}'`, `pg_dump -h ${ip(r)} -U backup -Fc app > /var/backups/app-$(date +%F).dump`, 'unset PGPASSWORD']) };
    }
    return { name: "tr '\\0' '\\n' < /proc/4242/environ", secrets: [{ kind: 'pgpassword-env', value: v }],
      text: text(['LANG=C.UTF-8', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin', 'HOME=/var/lib/postgresql', 'PGHOST=db-prod-1', 'PGUSER=report', `PGPASSWORD=${v}`, 'PGDATABASE=analytics', 'INVOCATION_ID=' + r.hex(32)]) };
  },
};

const sshpass: KindSpec = {
  kinds: ['sshpass-flag'],
  make(r) {
    const v = r.password();
    return { name: 'cat /root/bin/switch-backup.sh', secrets: [{ kind: 'sshpass-flag', value: v }],
      text: text(['#!/bin/sh', '# pull running-config from the access switches', 'for sw in sw-a1 sw-a2 sw-b1; do', `  sshpass -p '${v}' ssh -o StrictHostKeyChecking=no admin@$sw "show running-config" > /srv/netbackup/$sw.cfg`, 'done']) };
  },
};

const curlU: KindSpec = {
  kinds: ['curl-user-flag'],
  make(r) {
    const v = r.password();
    const line = r.pick([
      `curl -fsS -u ${user(r)}:${v} https://${fqdn(r)}/api/v1/backup -o /tmp/backup.json`,
      `wget --user=${user(r)} --password=${v} https://${fqdn(r)}/exports/latest.csv`,
    ]);
    return { name: 'tail ~/.bash_history', secrets: [{ kind: 'curl-user-flag', value: v }], text: text(['sudo systemctl restart nginx', 'journalctl -u nginx -n 20', line, 'ls -la /tmp', 'exit']) };
  },
};

export const cliSpecs: KindSpec[] = [flag, mysqlP, pgpassword, sshpass, curlU];
