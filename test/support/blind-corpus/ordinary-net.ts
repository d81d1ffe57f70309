/**
 * More secret-free output: firewall rulesets, cluster listings, timers, name resolution,
 * cloud identity lookups (ids that are not credentials) and kernel messages.
 */
import type { OrdinarySpec } from './types.js';
import { domain, fqdn, host, ip, iso, text, user } from './context.js';

const nft: OrdinarySpec = {
  name: 'nft list ruleset',
  make(r) {
    const admin = ip(r);
    return text(['table inet filter {', '\tset admins {', '\t\ttype ipv4_addr', '\t\tflags interval', `\t\telements = { ${admin}, 10.0.0.0/8 }`, '\t}', '',
      '\tchain input {', '\t\ttype filter hook input priority filter; policy drop;', '\t\tct state established,related accept', '\t\tct state invalid drop', '\t\tiifname "lo" accept',
      '\t\tip protocol icmp icmp type { echo-request, destination-unreachable, time-exceeded } accept', '\t\tip6 nexthdr ipv6-icmp accept', '\t\tip saddr @admins tcp dport 22 accept',
      '\t\ttcp dport { 80, 443 } accept', `\t\tudp dport 51820 accept comment "wireguard"`, `\t\ttcp dport 9100 ip saddr ${ip(r)} accept comment "node_exporter"`,
      `\t\tlimit rate 5/minute log prefix "nft-drop: " counter packets ${r.int(100, 99999)} bytes ${r.int(10000, 9999999)}`, '\t}', '', '\tchain forward {',
      '\t\ttype filter hook forward priority filter; policy drop;', '\t\tiifname "wg0" oifname "eth0" accept', '\t\tct state established,related accept', '\t}', '', '\tchain output {',
      '\t\ttype filter hook output priority filter; policy accept;', '\t}', '}', 'table ip nat {', '\tchain postrouting {', '\t\ttype nat hook postrouting priority srcnat; policy accept;',
      '\t\toifname "eth0" ip saddr 10.66.0.0/24 masquerade', '\t}', '}', 'table ip6 filter {', '\tchain input {', '\t\ttype filter hook input priority filter; policy accept;', '\t}', '}']);
  },
};

const kubectlGet: OrdinarySpec = {
  name: 'kubectl get pods,svc -o wide; kubectl get events',
  make(r) {
    const lines = ['NAME                                READY   STATUS    RESTARTS      AGE   IP             NODE         NOMINATED NODE   READINESS GATES'];
    for (const app of ['webapp', 'webapp', 'worker', 'worker', 'redis-master', 'postgres', 'ingress-nginx-controller', 'cert-manager', 'coredns', 'metrics-server']) {
      lines.push(`pod/${app}-${r.hex(10)}-${r.chars('bcdfghjklmnpqrstvwxz2456789', 5)}`.padEnd(36) + `1/1     Running   ${r.int(0, 3)}             ${r.int(1, 40)}d   10.244.${r.int(0, 9)}.${r.int(2, 250)}   k8s-node-${r.int(1, 9)}   <none>           <none>`);
    }
    lines.push('', 'NAME                 TYPE           CLUSTER-IP      EXTERNAL-IP     PORT(S)                      AGE   SELECTOR');
    for (const svc of ['webapp', 'worker', 'redis', 'postgres', 'kubernetes']) lines.push(`service/${svc}`.padEnd(21) + `ClusterIP      10.96.${r.int(0, 255)}.${r.int(1, 254)}   <none>          ${r.pick(['80/TCP', '6379/TCP', '5432/TCP', '443/TCP'])}   ${r.int(1, 300)}d   app=${svc}`);
    lines.push('', 'LAST SEEN   TYPE      REASON              OBJECT                             MESSAGE');
    for (let i = 0; i < 10; i++) {
      lines.push(`${r.int(1, 59)}m         ${r.pick(['Normal    Pulled', 'Normal    Scheduled', 'Warning   BackOff', 'Normal    SuccessfulCreate', 'Normal    Killing'])}`.padEnd(43) + `pod/webapp-${r.hex(10)}   ${r.pick(['Container image "registry.example.com/webapp:2.4.1" already present on machine', 'Back-off restarting failed container', 'Stopping container webapp', `Successfully assigned prod/webapp to k8s-node-${r.int(1, 9)}`])}`);
    }
    return text(lines);
  },
};

const timers: OrdinarySpec = {
  name: 'systemctl list-timers; crontab -l',
  make(r) {
    const lines = ['NEXT                        LEFT          LAST                        PASSED       UNIT                         ACTIVATES'];
    for (const [u, a] of [['apt-daily.timer', 'apt-daily.service'], ['apt-daily-upgrade.timer', 'apt-daily-upgrade.service'], ['logrotate.timer', 'logrotate.service'],
      ['man-db.timer', 'man-db.service'], ['fstrim.timer', 'fstrim.service'], ['e2scrub_all.timer', 'e2scrub_all.service'], ['systemd-tmpfiles-clean.timer', 'systemd-tmpfiles-clean.service'],
      ['certbot.timer', 'certbot.service'], ['borg-backup.timer', 'borg-backup.service']] as const) {
      lines.push(`Sun 2026-12-06 ${String(r.int(8, 23)).padStart(2, '0')}:${r.int(10, 59)}:00 UTC ${String(r.int(1, 15)).padStart(2)}h left     Sun 2026-12-06 0${r.int(0, 7)}:${r.int(10, 59)}:01 UTC ${r.int(1, 7)}h ago       ${u.padEnd(28)} ${a}`);
    }
    lines.push('', '9 timers listed.', 'Pass --all to see loaded but inactive timers, too.', '', '$ crontab -l', '# Edit this file to introduce tasks to be run by cron.', '#',
      '# m h  dom mon dow   command', 'MAILTO=ops@example.com', '*/5 * * * * /usr/local/bin/check-disk.sh >/dev/null 2>&1', '15 3 * * * /usr/local/bin/pg-backup.sh --password-file /root/.pgbackup',
      '0 4 * * 0 /usr/bin/certbot renew --quiet --deploy-hook "systemctl reload nginx"', '30 2 * * * /usr/bin/rsync -a --delete /srv/www/ backup@backup-01:/srv/www/',
      '@reboot /usr/local/bin/wg-up.sh', `# last edited by ${user(r)} on ${iso(r)}`);
    return text(lines);
  },
};

const resolution: OrdinarySpec = {
  name: 'cat /etc/hosts /etc/resolv.conf /etc/netplan/50-cloud-init.yaml',
  make(r) {
    const a = ip(r);
    const lines = ['127.0.0.1\tlocalhost', `127.0.1.1\t${fqdn(r)} ${host(r)}`, '', '# The following lines are desirable for IPv6 capable hosts', '::1     localhost ip6-localhost ip6-loopback',
      'ff02::1 ip6-allnodes', 'ff02::2 ip6-allrouters'];
    for (let i = 0; i < 6; i++) lines.push(`${ip(r)}\t${fqdn(r)}`);
    lines.push('---', '# This is /run/systemd/resolve/stub-resolv.conf managed by man:systemd-resolved(8).', 'nameserver 127.0.0.53', 'options edns0 trust-ad', `search ${domain(r)}`, '---',
      'network:', '  version: 2', '  ethernets:', '    eth0:', '      dhcp4: false', `      addresses: [${a}/24]`, '      routes:', `        - to: default`, `          via: ${a.replace(/\d+$/, '1')}`,
      '      nameservers:', `        addresses: [${ip(r)}, 1.1.1.1]`, `        search: [${domain(r)}]`, `      match:`, `        macaddress: 52:54:00:${r.hex(2)}:${r.hex(2)}:${r.hex(2)}`, '      set-name: eth0');
    return text(lines);
  },
};

const cloudIds: OrdinarySpec = {
  name: 'aws sts get-caller-identity; az account show; gcloud auth list; cloud-init query',
  make(r) {
    const acct = r.digits(12);
    return text(['{', `    "UserId": "AIDA${r.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 17)}",`, `    "Account": "${acct}",`, `    "Arn": "arn:aws:iam::${acct}:user/${user(r)}"`, '}',
      '{', '  "environmentName": "AzureCloud",', `  "homeTenantId": "${r.uuid()}",`, `  "id": "${r.uuid()}",`, '  "isDefault": true,', '  "managedByTenants": [],', '  "name": "Production",',
      '  "state": "Enabled",', `  "tenantId": "${r.uuid()}",`, '  "user": {', `    "name": "${user(r)}@example.com",`, '    "type": "user"', '  }', '}',
      '    Credentialed Accounts', 'ACTIVE  ACCOUNT', `*       ${user(r)}@example.com`, `        backup@example-prod-${r.int(100000, 999999)}.iam.gserviceaccount.com`, '',
      'To set the active account, run:', '    $ gcloud config set account `ACCOUNT`', '', `$ cloud-init query instance_id`, `i-0${r.hex(16)}`, '$ cloud-init query region', 'eu-central-1',
      '$ cloud-init status --long', 'status: done', 'extended_status: done', 'boot_status_code: enabled-by-generator', `last_update: Sun, 06 Dec 2026 0${r.int(0, 7)}:${r.int(10, 59)}:02 +0000`,
      'detail:', 'DataSourceEc2Local', 'errors: []', 'recoverable_errors: {}']);
  },
};

const dmesg: OrdinarySpec = {
  name: 'dmesg -T | tail -40',
  make(r) {
    const lines: string[] = [];
    const msgs = [() => `EXT4-fs (sdb1): mounted filesystem ${r.uuid()} r/w with ordered data mode. Quota mode: none.`, () => `e1000e 0000:00:1f.6 eth0: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx`,
      () => `audit: type=1400 audit(${r.int(1700000000, 1790000000)}.${r.int(100, 999)}:${r.int(10, 999)}): apparmor="STATUS" operation="profile_load" profile="unconfined" name="docker-default" pid=${r.int(1000, 9999)} comm="apparmor_parser"`,
      () => `br-${r.hex(12)}: port 1(veth${r.hex(7)}) entered forwarding state`, () => `wireguard: WireGuard 1.0.0 loaded. See www.wireguard.com for information.`,
      () => `nvme nvme0: 4/0/0 default/read/poll queues`, () => `systemd[1]: Mounted sys-kernel-tracing.mount - Kernel Trace File System.`, () => `Adding ${r.int(1, 8)}G swap on /swapfile.  Priority:-2 extents:${r.int(1, 9)} across:${r.int(1, 9)}G SS`,
      () => `device-mapper: uevent: version 1.0.3`, () => `TCP: request_sock_TCP: Possible SYN flooding on port ${r.pick([80, 443])}. Sending cookies.  Check SNMP counters.`,
      () => `usb 1-1: New USB device found, idVendor=${r.hex(4)}, idProduct=${r.hex(4)}, bcdDevice= 1.00`, () => `usb 1-1: SerialNumber: ${r.hex(16).toUpperCase()}`,
      () => `ata1.00: ATA-10: Samsung SSD 870 EVO 1TB, SVT02B6Q, max UDMA/133`, () => `Out of memory: Killed process ${r.int(1000, 99999)} (java) total-vm:${r.int(1e6, 9e6)}kB, anon-rss:${r.int(1e5, 9e5)}kB, file-rss:0kB, shmem-rss:0kB, UID:${r.int(100, 1100)} pgtables:${r.int(1000, 9000)}kB oom_score_adj:0`];
    let t = r.int(1, 50000);
    for (let i = 0; i < 40; i++) { t += r.int(0, 400); lines.push(`[Sun Dec  6 ${String(Math.floor(t / 3600) % 24).padStart(2, '0')}:${String(Math.floor(t / 60) % 60).padStart(2, '0')}:${String(t % 60).padStart(2, '0')} 2026] ${r.pick(msgs)()}`); }
    return text(lines);
  },
};

export const ordinaryNetSpecs: OrdinarySpec[] = [nft, kubectlGet, timers, resolution, cloudIds, dmesg];
