/** Secret-free host output: fstab/blkid, systemctl show, journals, ps, ip, hostnamectl, apt/dpkg. */
import type { Rng } from './rng.js';
import type { OrdinarySpec } from './types.js';
import { host, ip, jtime, journal, pid, text, user } from './context.js';

const mac = (r: Rng): string => Array.from({ length: 6 }, () => r.hex(2)).join(':');

const fstab: OrdinarySpec = {
  name: 'cat /etc/fstab; blkid',
  make(r) {
    const ids = Array.from({ length: 5 }, () => r.uuid());
    return text(['# /etc/fstab: static file system information.', '#', "# Use 'blkid' to print the universally unique identifier for a", '# device; this may be used with UUID= as a more robust way to name devices',
      '# that works even if disks are added and removed. See fstab(5).', '#', '# <file system> <mount point>   <type>  <options>       <dump>  <pass>',
      `UUID=${ids[0]} /               ext4    errors=remount-ro 0       1`, `UUID=${r.hex(4).toUpperCase()}-${r.hex(4).toUpperCase()}  /boot/efi       vfat    umask=0077      0       1`,
      `UUID=${ids[1]} none            swap    sw              0       0`, `UUID=${ids[2]} /srv            xfs     defaults,noatime 0      2`,
      `${ip(r)}:/export/share /mnt/share nfs4 rw,hard,timeo=600,_netdev 0 0`, 'tmpfs /tmp tmpfs defaults,noatime,mode=1777,size=2G 0 0', '',
      `/dev/sda1: UUID="${ids[0]}" BLOCK_SIZE="4096" TYPE="ext4" PARTUUID="${r.uuid()}"`, `/dev/sda2: UUID="${ids[1]}" TYPE="swap" PARTUUID="${r.uuid()}"`,
      `/dev/sdb1: UUID="${ids[2]}" BLOCK_SIZE="512" TYPE="xfs" PARTLABEL="data" PARTUUID="${r.uuid()}"`, `/dev/nvme0n1p1: UUID="${ids[3]}" TYPE="LVM2_member" PARTUUID="${r.uuid()}"`,
      `/dev/mapper/vg0-root: UUID="${ids[4]}" BLOCK_SIZE="4096" TYPE="ext4"`, '',
      'NAME           FSTYPE      FSVER    LABEL UUID                                   FSAVAIL FSUSE% MOUNTPOINTS',
      'sda', `├─sda1         ext4        1.0            ${ids[0]}   ${r.int(5, 80)}G    ${r.int(10, 90)}% /`, `└─sda2         swap        1              ${ids[1]}                [SWAP]`,
      'sdb', `└─sdb1         xfs                  data  ${ids[2]}  ${r.int(100, 900)}G    ${r.int(10, 90)}% /srv`, 'nvme0n1',
      `└─nvme0n1p1    LVM2_member LVM2 001       ${r.alnum(6)}-${r.alnum(4)}-${r.alnum(4)}-${r.alnum(4)}-${r.alnum(4)}-${r.alnum(4)}-${r.alnum(6)}`,
      `  └─vg0-root   ext4        1.0            ${ids[4]}`, '', `mdadm: /dev/md0 UUID=${r.hex(8)}:${r.hex(8)}:${r.hex(8)}:${r.hex(8)}`,
      '', 'Filesystem      Size  Used Avail Use% Mounted on', `/dev/sda1        ${r.int(20, 200)}G   ${r.int(5, 90)}G   ${r.int(5, 90)}G  ${r.int(10, 90)}% /`,
      `/dev/sdb1       ${r.int(500, 1900)}G  ${r.int(100, 900)}G  ${r.int(100, 900)}G  ${r.int(10, 90)}% /srv`, 'tmpfs           2.0G   12K  2.0G   1% /tmp',
      `${ip(r)}:/export/share  4.0T  2.1T  1.9T  53% /mnt/share`]);
  },
};

const systemctlShow: OrdinarySpec = {
  name: 'systemctl show nginx.service',
  make(r) {
    const p = pid(r);
    return text(['Type=forking', 'ExitType=main', 'Restart=on-failure', 'NotifyAccess=none', 'RestartUSec=100ms', 'TimeoutStartUSec=1min 30s', 'TimeoutStopUSec=5s',
      'RuntimeMaxUSec=infinity', 'WatchdogUSec=0', `WatchdogTimestampMonotonic=${r.int(1e6, 9e9)}`, `MainPID=${p}`, 'ControlPID=0', 'FileDescriptorStoreMax=0',
      'StatusErrno=0', 'Result=success', 'ReloadResult=success', 'CleanResult=success', 'UID=[not set]', 'GID=[not set]', 'NRestarts=0', 'OOMPolicy=stop',
      `ExecMainStartTimestamp=Sun 2026-12-06 0${r.int(0, 7)}:${r.int(10, 59)}:${r.int(10, 59)} UTC`, `ExecMainPID=${p}`, 'ExecMainCode=0', 'ExecMainStatus=0',
      `ExecStart={ path=/usr/sbin/nginx ; argv[]=/usr/sbin/nginx -g daemon on; master_process on; ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }`,
      'Slice=system.slice', 'ControlGroup=/system.slice/nginx.service', `MemoryCurrent=${r.int(1e6, 9e7)}`, `CPUUsageNSec=${r.int(1e8, 9e10)}`, `TasksCurrent=${r.int(2, 9)}`,
      `InvocationID=${r.hex(32)}`, 'Environment=LANG=C.UTF-8', 'EnvironmentFiles=/etc/default/nginx (ignore_errors=yes)', 'UMask=0022', 'LimitNOFILE=524288',
      'LimitNOFILESoft=1024', 'OOMScoreAdjust=0', 'Nice=0', 'IOSchedulingClass=2', 'CPUSchedulingPolicy=0', 'KillMode=mixed', 'KillSignal=15',
      'Id=nginx.service', 'Names=nginx.service', 'Requires=system.slice sysinit.target', 'WantedBy=multi-user.target', 'Description=A high performance web server and a reverse proxy server',
      'LoadState=loaded', 'ActiveState=active', 'SubState=running', 'FragmentPath=/lib/systemd/system/nginx.service', 'UnitFileState=enabled', 'UnitFilePreset=enabled',
      `StateChangeTimestamp=Sun 2026-12-06 0${r.int(0, 7)}:${r.int(10, 59)}:${r.int(10, 59)} UTC`, 'CanStart=yes', 'CanStop=yes', 'CanReload=yes']);
  },
};

const journalOut: OrdinarySpec = {
  name: 'journalctl -b -n 45',
  make(r) {
    const h = host(r);
    const lines = journal(r, 30, h);
    lines.splice(5, 0, `${jtime(r)} ${h} sudo[${pid(r)}]:    ${user(r)} : TTY=pts/1 ; PWD=/home/${user(r)} ; USER=root ; COMMAND=/usr/bin/systemctl restart nginx`,
      `${jtime(r)} ${h} sudo[${pid(r)}]: pam_unix(sudo:session): session opened for user root(uid=0) by ${user(r)}(uid=1000)`,
      `${jtime(r)} ${h} sshd[${pid(r)}]: Failed password for invalid user admin from ${ip(r)} port ${r.int(30000, 60000)} ssh2`,
      `${jtime(r)} ${h} sshd[${pid(r)}]: Connection closed by authenticating user root ${ip(r)} port ${r.int(30000, 60000)} [preauth]`,
      `${jtime(r)} ${h} systemd[1]: Started nginx.service - A high performance web server and a reverse proxy server.`,
      `${jtime(r)} ${h} kernel: EXT4-fs (sda1): mounted filesystem ${r.uuid()} r/w with ordered data mode. Quota mode: none.`,
      `${jtime(r)} ${h} systemd[1]: Finished systemd-tmpfiles-clean.service - Cleanup of Temporary Directories.`,
      `${jtime(r)} ${h} audit[${pid(r)}]: USER_AUTH pid=${pid(r)} uid=0 auid=1000 ses=3 msg='op=PAM:authentication grantors=pam_unix acct="${user(r)}" exe="/usr/bin/sudo" hostname=? addr=? terminal=/dev/pts/1 res=success'`,
      `${jtime(r)} ${h} postfix/smtp[${pid(r)}]: ${r.hex(10).toUpperCase()}: to=<ops@example.com>, relay=smtp.example.com[${ip(r)}]:587, delay=0.6, dsn=2.0.0, status=sent (250 2.0.0 OK ${r.hex(8)})`,
      `${jtime(r)} ${h} systemd[1]: Started run-docker-runtime\\x2drunc-moby-${r.hex(64)}-runc.${r.alnum(6)}.mount - /run/docker/runtime-runc/moby/${r.hex(64)}/runc.${r.alnum(6)}.`);
    return text(lines);
  },
};

const psOut: OrdinarySpec = {
  name: 'ps auxf',
  make(r) {
    const row = (u: string, cmd: string) => `${u.padEnd(10)} ${String(pid(r)).padStart(6)}  ${r.int(0, 3)}.${r.int(0, 9)}  ${r.int(0, 5)}.${r.int(0, 9)} ${String(r.int(5000, 900000)).padStart(7)} ${String(r.int(1000, 90000)).padStart(6)} ?        Ss   Dec0${r.int(1, 6)}   ${r.int(0, 9)}:${r.int(10, 59)} ${cmd}`;
    return text(['USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND', row('root', '/sbin/init'), row('root', '/lib/systemd/systemd-journald'),
      row('root', '/lib/systemd/systemd-udevd'), row('systemd+', '/lib/systemd/systemd-resolved'), row('root', '/usr/sbin/cron -f'), row('message+', '/usr/bin/dbus-daemon --system --address=systemd: --nofork --nopidfile --systemd-activation --syslog-only'),
      row('root', '/usr/sbin/rsyslogd -n -iNONE'), row('root', 'sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups'), row('root', ' \\_ sshd: ops [priv]'), row('ops', '     \\_ sshd: ops@pts/0'),
      row('ops', '         \\_ -bash'), row('root', '             \\_ sudo -i'), row('root', '                 \\_ ps auxf'), row('postgres', '/usr/lib/postgresql/16/bin/postgres -D /var/lib/postgresql/16/main -c config_file=/etc/postgresql/16/main/postgresql.conf'),
      row('postgres', ' \\_ postgres: 16/main: checkpointer'), row('postgres', ' \\_ postgres: 16/main: background writer'), row('postgres', ' \\_ postgres: 16/main: walwriter'),
      row('postgres', ' \\_ postgres: 16/main: app app 127.0.0.1(51234) idle'), row('redis', '/usr/bin/redis-server 127.0.0.1:6379'), row('root', '/usr/bin/containerd'),
      row('root', '/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock'), row('root', `/usr/bin/containerd-shim-runc-v2 -namespace moby -id ${r.hex(64)} -address /run/containerd/containerd.sock`),
      row('999', 'grafana server --homepath=/usr/share/grafana --config=/etc/grafana/grafana.ini --packaging=docker cfg:default.log.mode=console'),
      row('nobody', '/bin/node_exporter --path.rootfs=/host --collector.filesystem.mount-points-exclude=^/(dev|proc|sys|run)($|/)'),
      row('www-data', 'nginx: worker process'), row('www-data', 'nginx: worker process'), row('root', 'nginx: master process /usr/sbin/nginx -g daemon on; master_process on;'),
      row('_chrony', '/usr/sbin/chronyd -F 1'), row('root', '/usr/sbin/qemu-ga'), row('root', '/sbin/agetty -o -p -- \\u --noclear - linux'),
      row('root', `/usr/bin/python3 /usr/bin/unattended-upgrade --download-only`), row('mysql', '/usr/sbin/mysqld --daemonize --pid-file=/run/mysqld/mysqld.pid'),
      row('root', '[kworker/1:2-events]'), row('root', '[jbd2/sda1-8]'), row('root', '[kthreadd]')]);
  },
};

const ipAddr: OrdinarySpec = {
  name: 'ip addr; ss -tlnp',
  make(r) {
    const a = ip(r);
    return text(['1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000', '    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00',
      '    inet 127.0.0.1/8 scope host lo', '       valid_lft forever preferred_lft forever', '    inet6 ::1/128 scope host noprefixroute', '       valid_lft forever preferred_lft forever',
      '2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP group default qlen 1000', `    link/ether ${mac(r)} brd ff:ff:ff:ff:ff:ff`, '    altname enp0s3',
      `    inet ${a}/24 brd ${a.replace(/\d+$/, '255')} scope global dynamic eth0`, `       valid_lft ${r.int(1000, 80000)}sec preferred_lft ${r.int(1000, 80000)}sec`,
      `    inet6 fe80::${r.hex(4)}:${r.hex(4)}:${r.hex(4)}:${r.hex(4)}/64 scope link`, '       valid_lft forever preferred_lft forever',
      '3: docker0: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 qdisc noqueue state DOWN group default', `    link/ether ${mac(r)} brd ff:ff:ff:ff:ff:ff`,
      '    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0', '       valid_lft forever preferred_lft forever',
      '4: wg0: <POINTOPOINT,NOARP,UP,LOWER_UP> mtu 1420 qdisc noqueue state UNKNOWN group default qlen 1000', '    link/none', '    inet 10.66.0.1/24 scope global wg0', '',
      'State  Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess', `LISTEN 0      511          0.0.0.0:80         0.0.0.0:*    users:(("nginx",pid=${pid(r)},fd=6))`,
      `LISTEN 0      511          0.0.0.0:443        0.0.0.0:*    users:(("nginx",pid=${pid(r)},fd=8))`, `LISTEN 0      128          0.0.0.0:22         0.0.0.0:*    users:(("sshd",pid=${pid(r)},fd=3))`,
      `LISTEN 0      244        127.0.0.1:5432       0.0.0.0:*    users:(("postgres",pid=${pid(r)},fd=6))`, `LISTEN 0      511        127.0.0.1:6379       0.0.0.0:*    users:(("redis-server",pid=${pid(r)},fd=6))`,
      `LISTEN 0      4096       127.0.0.53%lo:53     0.0.0.0:*    users:(("systemd-resolve",pid=${pid(r)},fd=14))`, `LISTEN 0      4096               *:9100             *:*    users:(("node_exporter",pid=${pid(r)},fd=3))`,
      `LISTEN 0      128             [::]:22            [::]:*    users:(("sshd",pid=${pid(r)},fd=4))`, '', 'default via ' + a.replace(/\d+$/, '1') + ' dev eth0 proto dhcp src ' + a + ' metric 100',
      `${a.replace(/\d+$/, '0')}/24 dev eth0 proto kernel scope link src ${a} metric 100`, '172.17.0.0/16 dev docker0 proto kernel scope link src 172.17.0.1 linkdown', '10.66.0.0/24 dev wg0 proto kernel scope link src 10.66.0.1']);
  },
};

const hostnamectl: OrdinarySpec = {
  name: 'hostnamectl; cat /etc/machine-id; cat /etc/os-release',
  make(r) {
    const mid = r.hex(32);
    return text([` Static hostname: ${host(r)}`, '       Icon name: computer-vm', '         Chassis: vm 🖴', `      Machine ID: ${mid}`, `         Boot ID: ${r.hex(32)}`,
      '  Virtualization: kvm', 'Operating System: Debian GNU/Linux 12 (bookworm)', '          Kernel: Linux 6.1.0-28-amd64', '    Architecture: x86-64', ' Hardware Vendor: QEMU',
      '  Hardware Model: Standard PC _Q35 + ICH9, 2009_', 'Firmware Version: 1.16.3-debian-1.16.3-2', '   Firmware Date: Tue 2014-04-01', '    Firmware Age: 12y 8month 5d', '---',
      mid, '---', 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"', 'NAME="Debian GNU/Linux"', 'VERSION_ID="12"', 'VERSION="12 (bookworm)"', 'VERSION_CODENAME=bookworm', 'ID=debian',
      'HOME_URL="https://www.debian.org/"', 'SUPPORT_URL="https://www.debian.org/support"', 'BUG_REPORT_URL="https://bugs.debian.org/"', '---', `$ cat /sys/class/dmi/id/product_uuid`, r.uuid(),
      '$ timedatectl', `               Local time: Sun 2026-12-06 08:0${r.int(0, 9)}:${r.int(10, 59)} UTC`, `           Universal time: Sun 2026-12-06 08:0${r.int(0, 9)}:${r.int(10, 59)} UTC`,
      '                 RTC time: Sun 2026-12-06 08:01:12', '                Time zone: Etc/UTC (UTC, +0000)', 'System clock synchronized: yes', '              NTP service: active', '          RTC in local TZ: no',
      '$ uptime', ` 08:01:12 up ${r.int(2, 300)} days,  ${r.int(1, 23)}:${r.int(10, 59)},  2 users,  load average: 0.${r.int(0, 99)}, 0.${r.int(0, 99)}, 0.${r.int(0, 99)}`]);
  },
};

const aptOut: OrdinarySpec = {
  name: 'apt-get install (output); apt-cache show',
  make(r) {
    const pkgs = ['libssl3', 'openssl', 'curl', 'libcurl4', 'nginx-common', 'nginx', 'ca-certificates', 'tzdata', 'libc6', 'openssh-server'];
    const lines = ['Reading package lists... Done', 'Building dependency tree... Done', 'Reading state information... Done', 'The following packages will be upgraded:',
      `  ${pkgs.slice(0, 6).join(' ')}`, `6 upgraded, 0 newly installed, 0 to remove and ${r.int(0, 30)} not upgraded.`, `Need to get ${r.int(1, 9)},${r.int(100, 999)} kB of archives.`];
    pkgs.slice(0, 6).forEach((p, i) => lines.push(`Get:${i + 1} http://deb.debian.org/debian-security bookworm-security/main amd64 ${p} amd64 3.0.${r.int(11, 15)}-1~deb12u${r.int(1, 3)} [${r.int(100, 2000)} kB]`));
    lines.push(`Fetched ${r.int(1, 9)},${r.int(100, 999)} kB in 1s (${r.int(1, 9)},${r.int(100, 999)} kB/s)`, 'Reading changelogs... Done', '(Reading database ... 48213 files and directories currently installed.)');
    for (const p of pkgs.slice(0, 4)) lines.push(`Preparing to unpack .../${p}_3.0.15-1~deb12u1_amd64.deb ...`, `Unpacking ${p}:amd64 (3.0.15-1~deb12u1) over (3.0.14-1~deb12u2) ...`);
    lines.push('---', 'Package: openssl', 'Version: 3.0.15-1~deb12u1', 'Installed-Size: 2291', 'Maintainer: Debian OpenSSL Team <pkg-openssl-devel@alioth-lists.debian.net>', 'Architecture: amd64',
      'Depends: libc6 (>= 2.34), libssl3 (>= 3.0.9)', 'Description-en: Secure Sockets Layer toolkit - cryptographic utility', `Description-md5: ${r.hex(32)}`, 'Section: utils', 'Priority: optional',
      'Filename: pool/updates/main/o/openssl/openssl_3.0.15-1~deb12u1_amd64.deb', `Size: ${r.int(100000, 2000000)}`, `MD5sum: ${r.hex(32)}`, `SHA256: ${r.hex(64)}`);
    return text(lines);
  },
};

const dpkgStatus: OrdinarySpec = {
  name: 'debsums -c; sha256sum; dpkg -l | head',
  make(r) {
    const lines = ['$ sha256sum debian-12.8.0-amd64-netinst.iso SHA256SUMS', `${r.hex(64)}  debian-12.8.0-amd64-netinst.iso`, `${r.hex(64)}  SHA256SUMS`, '$ cat SHA256SUMS'];
    for (const f of ['debian-12.8.0-amd64-DLBD-1.iso', 'debian-12.8.0-amd64-netinst.iso', 'debian-edu-12.8.0-amd64-netinst.iso', 'debian-mac-12.8.0-amd64-netinst.iso']) lines.push(`${r.hex(64)}  ${f}`);
    lines.push('$ md5sum /var/cache/apt/archives/*.deb | head -4');
    for (const f of ['curl_7.88.1-10+deb12u8_amd64.deb', 'libcurl4_7.88.1-10+deb12u8_amd64.deb', 'nginx_1.22.1-9_amd64.deb', 'tzdata_2024b-0+deb12u1_all.deb']) lines.push(`${r.hex(32)}  /var/cache/apt/archives/${f}`);
    lines.push('$ dpkg -l | head -20', 'Desired=Unknown/Install/Remove/Purge/Hold', '| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend',
      '|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)', '||/ Name                           Version                        Architecture Description',
      '+++-==============================-==============================-============-================================================================');
    const pkgs: [string, string, string][] = [['adduser', '3.134', 'add and remove users and groups'], ['apt', '2.6.1', 'commandline package manager'], ['base-files', '12.4+deb12u8', 'Debian base system miscellaneous files'],
      ['bash', '5.2.15-2+b7', 'GNU Bourne Again SHell'], ['ca-certificates', '20230311', 'Common CA certificates'], ['coreutils', '9.1-1', 'GNU core utilities'],
      ['curl', '7.88.1-10+deb12u8', 'command line tool for transferring data with URL syntax'], ['dbus', '1.14.10-1~deb12u1', 'simple interprocess messaging system'],
      ['gnupg', '2.2.40-1.1', 'GNU privacy guard - a free PGP replacement'], ['gpgv', '2.2.40-1.1', 'GNU privacy guard - signature verification tool'],
      ['openssh-server', '1:9.2p1-2+deb12u3', 'secure shell (SSH) server, for secure access from remote machines'], ['openssl', '3.0.15-1~deb12u1', 'Secure Sockets Layer toolkit']];
    for (const [n, v, d] of pkgs) {
      lines.push(`ii  ${n.padEnd(30)} ${v.padEnd(30)} amd64        ${d}`);
    }
    lines.push('$ debsums -c', '/usr/share/nginx/html/index.html', `$ rpm -q --qf '%{NAME} %{SIGMD5}\\n' bash`, `bash ${r.hex(32)}`);
    return text(lines);
  },
};

const lastLog: OrdinarySpec = {
  name: 'last -n 12; who; id',
  make(r) {
    const lines: string[] = [];
    for (let i = 0; i < 14; i++) lines.push(`${user(r).padEnd(8)} pts/${r.int(0, 4)}        ${ip(r).padEnd(16)} Sun Dec  ${r.int(1, 6)} 0${r.int(0, 9)}:${r.int(10, 59)}   still logged in`);
    lines.push(`reboot   system boot  6.1.0-28-amd64   Mon Nov 30 04:1${r.int(0, 9)}   still running`, '', 'wtmp begins Mon Nov  2 00:00:01 2026', '');
    lines.push(`ops      pts/0        2026-12-06 07:${r.int(10, 59)} (${ip(r)})`, `uid=1000(ops) gid=1000(ops) groups=1000(ops),4(adm),27(sudo),100(users),998(docker)`, '');
    lines.push('$ getent passwd | tail -8');
    for (const u of ['ops', 'deploy', 'backup2', 'grafana', 'prometheus', 'node_exporter', 'postgres', 'redis']) lines.push(`${u}:x:${r.int(100, 1100)}:${r.int(100, 1100)}::/home/${u}:/bin/bash`);
    lines.push('$ sudo -l', `Matching Defaults entries for ops on ${host(r)}:`, '    env_reset, mail_badpass, secure_path=/usr/local/sbin\\:/usr/local/bin\\:/usr/sbin\\:/usr/bin\\:/sbin\\:/bin, use_pty', '',
      `User ops may run the following commands on ${host(r)}:`, '    (ALL : ALL) ALL', `    (root) NOPASSWD: /usr/bin/systemctl restart nginx`, '$ chage -l ops', `Last password change					: ${r.pick(['Nov', 'Oct'])} 0${r.int(1, 9)}, 2026`,
      'Password expires					: never', 'Password inactive					: never', 'Account expires						: never', 'Minimum number of days between password change		: 0', 'Maximum number of days between password change		: 99999');
    return text(lines);
  },
};

export const ordinaryHostSpecs: OrdinarySpec[] = [fstab, systemctlShow, journalOut, psOut, ipAddr, hostnamectl, aptOut, dpkgStatus, lastLog];
