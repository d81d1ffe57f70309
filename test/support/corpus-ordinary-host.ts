/**
 * Ordinary outputs, part 2: what read actions return on a Linux host day to day: journals, systemctl, ip, ss, ls, ps,
 * kernel messages, nftables, apt sources, podman. Words such as password, token and key appear in them often, beside
 * values that are not secrets.
 */
import * as K from './corpus-keys.js';
import { ordinary } from './corpus-ordinary-public.js';
import { B64URL, Rng } from './corpus-random.js';
import type { CorpusFile } from './secret-corpus.js';

const HOSTS = ['web01', 'db01', 'edge01'];
const iso = (rng: Rng, i: number) => `2026-11-${String(20 + Math.floor(i / 1000)).padStart(2, '0')}T${String(Math.floor(i / 60) % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:${String(rng.int(60)).padStart(2, '0')}+0000`;
const ip4 = (rng: Rng) => `${rng.pick(['10.0', '192.168', '172.16', '203.0'])}.${rng.int(255)}.${rng.range(1, 254)}`;

/** One journal message: services talk about passwords, tokens and keys without giving any away. */
function journalMessage(rng: Rng): string {
  const pid = rng.range(300, 65000), user = rng.pick(['alice', 'bob', 'deploy', 'root', 'postgres', 'invalid user admin']);
  const unit = rng.pick(['orders.service', 'nginx.service', 'postgresql@16-main.service', 'podman-auto-update.service', 'apt-daily.service', 'logrotate.service', 'certbot.service']);
  const msgs = [
    `sshd[${pid}]: Accepted publickey for ${user} from ${ip4(rng)} port ${rng.range(1024, 65535)} ssh2: ED25519 SHA256:${rng.bytes(32).toString('base64').replace(/=+$/, '')}`,
    `sshd[${pid}]: Failed password for ${user} from ${ip4(rng)} port ${rng.range(1024, 65535)} ssh2`,
    `sshd[${pid}]: Connection closed by authenticating user ${user} ${ip4(rng)} port ${rng.range(1024, 65535)} [preauth]`,
    `sshd[${pid}]: pam_unix(sshd:session): session opened for user ${user}(uid=1000) by ${user}(uid=0)`,
    `sshd[${pid}]: Server listening on 0.0.0.0 port 22.`,
    `sudo[${pid}]:    alice : TTY=pts/0 ; PWD=/home/alice ; USER=root ; COMMAND=/usr/bin/systemctl restart ${unit}`,
    `sudo[${pid}]: pam_unix(sudo:auth): authentication failure; logname=alice uid=1000 euid=0 tty=/dev/pts/0 ruser=alice rhost=  user=alice`,
    `systemd[1]: Started ${unit} - ${rng.pick(['Orders API', 'A high performance web server', 'PostgreSQL Cluster 16-main', 'Podman auto-update service', 'Daily apt download activities'])}.`,
    `systemd[1]: ${unit}: Deactivated successfully.`,
    `systemd[1]: ${unit}: Consumed ${rng.range(1, 900)}.${rng.range(100, 999)}s CPU time, ${rng.range(2, 900)}.${rng.range(1, 9)}M memory peak.`,
    `systemd[1]: Starting session-${rng.range(1, 900)}.scope - Session ${rng.range(1, 900)} of User alice...`,
    `systemd-logind[612]: New session ${rng.range(1, 900)} of user ${user}.`,
    `systemd-resolved[540]: Using degraded feature set UDP instead of UDP+EDNS0 for DNS server ${ip4(rng)}.`,
    `systemd-timesyncd[541]: Contacted time server ${ip4(rng)}:123 (2.debian.pool.ntp.org).`,
    `CRON[${pid}]: (root) CMD (test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; })`,
    `CRON[${pid}]: pam_unix(cron:session): session closed for user root`,
    `kernel: audit: type=1400 audit(${rng.range(1764000000, 1764999999)}.${rng.range(100, 999)}:${rng.range(10, 999)}): apparmor="STATUS" operation="profile_replace" profile="unconfined" name="nginx" pid=${pid} comm="apparmor_parser"`,
    `kernel: [UFW BLOCK] IN=eth0 OUT= MAC=52:54:00:${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)}:fe:ff:ff:ff:ff:ff:08:00 SRC=${ip4(rng)} DST=10.0.0.4 LEN=44 TOS=0x00 PREC=0x00 TTL=${rng.range(30, 250)} ID=${rng.range(1, 65535)} PROTO=TCP SPT=${rng.range(1024, 65535)} DPT=${rng.pick([23, 445, 3389, 5900])} WINDOW=1024 RES=0x00 SYN URGP=0`,
    `nginx[${pid}]: ${ip4(rng)} - - "GET /api/v1/orders/${rng.range(1, 99999)} HTTP/1.1" 200 ${rng.range(100, 9000)} "-" "Mozilla/5.0"`,
    `orders[${pid}]: INFO  request_id=${rng.uuid()} method=GET path=/v1/orders status=200 duration_ms=${rng.range(1, 900)}`,
    `orders[${pid}]: INFO  token refresh succeeded for client_id=orders-web (expires_in=3600)`,
    `orders[${pid}]: WARN  authentication failed: invalid bearer token (reason=expired) request_id=${rng.uuid()}`,
    `orders[${pid}]: INFO  loaded password policy: min_length=12 require_digit=true`,
    `orders[${pid}]: DEBUG cache hit key=order:${rng.range(1, 99999)} etag="${rng.hex(32)}"`,
    `orders[${pid}]: INFO  using credentials from /run/credentials/orders.service/db-password`,
    `postgres[${pid}]: [${rng.range(1, 9)}-1] LOG:  connection authorized: user=orders database=orders application_name=orders SSL enabled (protocol=TLSv1.3, cipher=TLS_AES_256_GCM_SHA384, bits=256)`,
    `postgres[${pid}]: [1-1] FATAL:  password authentication failed for user "orders"`,
    `postgres[${pid}]: [1-2] DETAIL:  Connection matched file "/etc/postgresql/16/main/pg_hba.conf" line 120: "host all all 10.0.0.0/8 scram-sha-256"`,
    `podman[${pid}]: ${iso(rng, rng.int(9000))} container start ${rng.hex(64)} (image=ghcr.io/acme/orders@sha256:${rng.hex(64)}, name=orders)`,
    `podman[${pid}]: ${iso(rng, rng.int(9000))} image pull ${rng.hex(64)} docker.io/library/nginx:1.27`,
    `containerd[${pid}]: time="${iso(rng, rng.int(9000))}" level=info msg="shim disconnected" id=${rng.hex(64)} namespace=k8s.io`,
    `kubelet[${pid}]: I1201 10:12:13.${rng.range(100000, 999999)}    ${pid} reconciler_common.go:245] "operationExecutor.VerifyControllerAttachedVolume started for volume \\"kube-api-access-${rng.str('abcdefghijklmnopqrstuvwxyz0123456789', 5)}\\" (UniqueName: \\"kubernetes.io/projected/${rng.uuid()}-kube-api-access\\")"`,
    `kubelet[${pid}]: E1201 10:12:14.${rng.range(100000, 999999)}    ${pid} token_manager.go:121] "Couldn't update token" err="serviceaccounts \\"default\\" is forbidden" cacheKey="\\"default\\"/\\"ci\\"/[]string(nil)/3607/v1.BoundObjectReference{Kind:\\"Pod\\", Name:\\"runner-${rng.str('abcdefghijklmnopqrstuvwxyz0123456789', 5)}\\", UID:\\"${rng.uuid()}\\"}"`,
    `dbus-daemon[590]: [system] Successfully activated service 'org.freedesktop.PolicyKit1'`,
    `polkitd[${pid}]: Registered Authentication Agent for unix-session:${rng.range(1, 99)} (system bus name :1.${rng.range(10, 999)} [/usr/bin/lxpolkit], object path /org/freedesktop/PolicyKit1/AuthenticationAgent, locale en_US.UTF-8)`,
    `gnome-keyring-daemon[${pid}]: The Secret Service was already initialized`,
    `certbot[${pid}]: Certificate not yet due for renewal; no action taken. Key type: ECDSA, key size: 256`,
    `apt-helper[${pid}]: E: Sub-process nss-lookup.target returned an error code (100)`,
    `unattended-upgrade[${pid}]: Packages that will be upgraded: libssl3 openssl ca-certificates`,
    `wpa_supplicant[${pid}]: wlp2s0: WPA: Key negotiation completed with ${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)} [PTK=CCMP GTK=CCMP]`,
    `NetworkManager[${pid}]: <info>  [${rng.range(1764000000, 1764999999)}.${rng.range(1000, 9999)}] device (wlp2s0): supplicant interface state: 4way_handshake -> completed`,
    `NetworkManager[${pid}]: <info>  [${rng.range(1764000000, 1764999999)}.${rng.range(1000, 9999)}] device (wlp2s0): Activation: (wifi) Stage 2 of 5 (Device Configure) successful. Connected to wireless network "HomeNet"`,
    `dockerd[${pid}]: time="${iso(rng, rng.int(9000))}" level=warning msg="Your kernel does not support swap memory limit"`,
    `airlock[${pid}]: approved tx=${rng.hex(16)} action=RestartService risk=Medium by alice (second factor)`,
  ];
  return rng.pick(msgs);
}

function journal(rng: Rng, n: number): string[] {
  const host = rng.pick(HOSTS);
  return Array.from({ length: n }, (_, i) => `${iso(rng, i)} ${host} ${journalMessage(rng)}`);
}

function psAux(rng: Rng): string[] {
  const lines = ['USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND'];
  const cmds = () => [
    '/sbin/init', '/lib/systemd/systemd-journald', '/lib/systemd/systemd-udevd', '/usr/sbin/cron -f', 'sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups',
    `sshd: alice [priv]`, `sshd: alice@pts/${rng.int(9)}`, '-bash', 'nginx: master process /usr/sbin/nginx -g daemon on; master_process on;', 'nginx: worker process',
    '/usr/lib/postgresql/16/bin/postgres -D /var/lib/postgresql/16/main -c config_file=/etc/postgresql/16/main/postgresql.conf', 'postgres: 16/main: checkpointer ',
    'postgres: 16/main: orders orders 10.0.0.4(51234) idle', `/usr/bin/conmon --api-version 1 -c ${rng.hex(64)} -u ${rng.hex(64)} -r /usr/bin/crun -b /var/lib/containers/storage/overlay-containers/${rng.hex(64)}/userdata -p /run/containers/storage/overlay-containers/${rng.hex(64)}/userdata/pidfile -n orders --exit-dir /run/libpod/exits --persist-dir /run/libpod/persist/${rng.hex(64)} --log-level warning --syslog --conmon-pidfile /run/containers/storage/overlay-containers/${rng.hex(64)}/userdata/conmon.pid`,
    `/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id ${rng.hex(64)} -address /run/containerd/containerd.sock`,
    `/usr/bin/kubelet --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf --config=/var/lib/kubelet/config.yaml --container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.9`,
    `/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock --tlsverify --tlscacert=/etc/docker/ca.pem --tlscert=/etc/docker/cert.pem --tlskey=/etc/docker/key.pem`,
    `/opt/app/bin/app --config /etc/app/config.toml --password-file=/run/secrets/db_password --token-file /var/run/secrets/kubernetes.io/serviceaccount/token`,
    `/usr/bin/python3 /usr/bin/unattended-upgrade --download-only`, `gpg-agent --homedir /home/alice/.gnupg --use-standard-socket --daemon`, 'ssh-agent -s',
    `/usr/lib/chromium/chromium --type=renderer --crashpad-handler-pid=${rng.range(1000, 9999)} --enable-crash-reporter=,${rng.hex(8)} --change-stack-guard-on-fork=enable --lang=en-US --num-raster-threads=4 --enable-main-frame-before-activation --renderer-client-id=${rng.range(5, 99)} --time-ticks-at-unix-epoch=-${rng.range(1700000000000000, 1769999999999999)} --launch-time-ticks=${rng.range(1000000, 99999999)} --shared-files=v8_context_snapshot_data:100 --field-trial-handle=3,i,${rng.str('0123456789', 19)},${rng.str('0123456789', 19)},262144 --variations-seed-version`,
    `java -Xms256m -Xmx1g -XX:+UseG1GC -Dspring.profiles.active=prod -Dspring.config.location=/etc/orders/ -Djavax.net.ssl.trustStore=/etc/orders/truststore.p12 -jar /opt/orders/orders.jar`,
    `node /usr/lib/node_modules/npm/bin/npm-cli.js run build`, `/usr/sbin/wpa_supplicant -u -s -O DIR=/run/wpa_supplicant GROUP=netdev`, `/usr/sbin/NetworkManager --no-daemon`,
    `/usr/libexec/podman/aardvark-dns --config /run/containers/networks/aardvark-dns -p 53 run`, `[kworker/${rng.int(8)}:${rng.int(3)}-events]`, '[rcu_preempt]', `[jbd2/sda${rng.range(1, 4)}-8]`,
  ];
  for (let i = 0; i < 320; i++) {
    const c = rng.pick(cmds());
    lines.push(`${rng.pick(['root', 'alice', 'postgres', 'www-data', 'app', 'systemd+', 'message+']).padEnd(8)} ${String(rng.range(1, 99999)).padStart(7)} ${(rng.next() * 5).toFixed(1).padStart(4)} ${(rng.next() * 4).toFixed(1).padStart(4)} ${String(rng.range(1000, 3000000)).padStart(7)} ${String(rng.range(100, 900000)).padStart(6)} ${rng.pick(['?', 'pts/0', 'pts/1'])}        ${rng.pick(['Ss', 'S', 'Sl', 'Ssl', 'R+', 'I<'])}   ${rng.pick(['Nov30', '09:12', '10:01'])}   ${rng.range(0, 59)}:${String(rng.range(0, 59)).padStart(2, '0')} ${c}`);
  }
  return lines;
}

function lsLong(rng: Rng, dir: string, n: number): string[] {
  const names = ['passwd', 'shadow', 'group', 'gshadow', 'ssh', 'ssl', 'pam.d', 'security', 'sudoers', 'sudoers.d', 'hosts', 'hostname', 'resolv.conf', 'nsswitch.conf',
    'machine-id', 'os-release', 'login.defs', 'fstab', 'crontab', 'default', 'systemd', 'netplan', 'wpa_supplicant', 'nginx', 'apt', 'credstore', 'credstore.encrypted',
    'secrets', 'token.json', 'tokens.d', 'api-keys', 'private', 'id_ed25519.pub', 'app.conf', 'keyring', 'trusted.gpg.d', 'password-store'];
  const lines = [`total ${rng.range(100, 9000)}`];
  for (let i = 0; i < n; i++) {
    const d = rng.next() < 0.3;
    lines.push(`${d ? 'd' : '-'}${rng.pick(['rw-r--r--', 'rwxr-xr-x', 'rw-------', 'rw-r-----'])} ${rng.range(1, 9)} ${rng.pick(['root', 'alice', 'www-data'])} ${rng.pick(['root', 'shadow', 'alice', 'adm'])} ${String(rng.range(0, 99999)).padStart(6)} ${rng.pick(['Nov', 'Dec', 'Oct'])} ${String(rng.range(1, 30)).padStart(2)} ${rng.pick(['10:12', '2025', '09:01', '23:59'])} ${rng.pick(names)}${i >= names.length ? `.${i}` : ''}`);
  }
  if (dir === '/usr/bin') lines.push(`lrwxrwxrwx 1 root root      7 Apr  8  2024 python3 -> python3.11`);
  return lines;
}

function dmesg(rng: Rng, n: number): string[] {
  const msgs = [
    () => `Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)`,
    () => `Command line: BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=UUID=${rng.uuid()} ro quiet`,
    () => `ACPI: RSDP 0x00000000000F5A40 000014 (v00 BOCHS )`, () => `e820: update [mem 0x${rng.hex(8)}-0x${rng.hex(8)}] usable ==> reserved`,
    () => `EXT4-fs (sda1): mounted filesystem ${rng.uuid()} r/w with ordered data mode. Quota mode: none.`,
    () => `virtio_net virtio1 enp1s0: renamed from eth0`, () => `audit: type=1400 audit(${rng.range(1764000000, 1764999999)}.${rng.range(100, 999)}:2): apparmor="STATUS" operation="profile_load" profile="unconfined" name="/usr/bin/man" pid=${rng.range(300, 900)} comm="apparmor_parser"`,
    () => `Key type asymmetric registered`, () => `Asymmetric key parser 'x509' registered`, () => `Loaded X.509 cert 'Debian Secure Boot CA: ${rng.hex(40)}'`,
    () => `integrity: Loaded X.509 cert 'Debian Secure Boot Signer 2022 - linux: ${rng.hex(40)}'`, () => `random: crng init done`,
    () => `systemd[1]: systemd 252.31-1~deb12u1 running in system mode (+PAM +AUDIT +SELINUX +APPARMOR +IMA +SMACK +SECCOMP +GCRYPT -GNUTLS +OPENSSL +ACL +BLKID +CURL +ELFUTILS +FIDO2 +IDN2 -IDN +IPTC +KMOD +LIBCRYPTSETUP +LIBFDISK +PCRE2 -PWQUALITY +P11KIT +QRENCODE +TPM2 +BZIP2 +LZ4 +XZ +ZLIB +ZSTD -BPF_FRAMEWORK -XKBCOMMON +UTMP +SYSVINIT default-hierarchy=unified)`,
    () => `nf_tables: (C) 2007-2009 Patrick McHardy <kaber@trash.net>`, () => `wlp2s0: authenticate with ${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)}`,
    () => `wlp2s0: associated`, () => `IPv6: ADDRCONF(NETDEV_CHANGE): wlp2s0: link becomes ready`, () => `usb 1-1: new high-speed USB device number ${rng.range(2, 20)} using xhci_hcd`,
    () => `usb 1-1: SerialNumber: ${rng.hex(16).toUpperCase()}`, () => `sd 2:0:0:0: [sda] ${rng.range(100000000, 999999999)} 512-byte logical blocks: (${rng.range(50, 999)} GB/${rng.range(50, 900)} GiB)`,
    () => `TCP: request_sock_TCP: Possible SYN flooding on port 443. Sending cookies.  Check SNMP counters.`, () => `Out of memory: Killed process ${rng.range(300, 60000)} (java) total-vm:${rng.range(100000, 9999999)}kB, anon-rss:${rng.range(10000, 999999)}kB`,
    () => `tpm_tis 00:05: 2.0 TPM (device-id 0x1, rev-id 1)`, () => `trusted_key: encrypted_key: key user:kmk not found`, () => `Lockdown: systemd: /dev/mem,kmem,port is restricted; see man kernel_lockdown.7`,
  ];
  return Array.from({ length: n }, (_, i) => `[${String(Math.floor(i * 1.7)).padStart(5)}.${String(rng.int(999999)).padStart(6, '0')}] ${rng.pick(msgs)()}`);
}

export function hostFiles(rng: Rng): CorpusFile[] {
  const files: CorpusFile[] = [];
  files.push(ordinary('journalctl -o short-iso', journal(rng, 4200)));
  files.push(ordinary('journalctl -o short-iso -u sshd -u sudo', journal(rng, 1500)));
  files.push(ordinary('journalctl -k -o short-iso', journal(rng, 600)));
  files.push(ordinary('dmesg -T', dmesg(rng, 1300)));
  files.push(ordinary('ps auxww', psAux(rng)));
  files.push(ordinary('ls -l /etc', lsLong(rng, '/etc', 400)));
  files.push(ordinary('ls -l /usr/bin', lsLong(rng, '/usr/bin', 500)));
  files.push(ordinary('systemctl status orders nginx ssh', [
    '● orders.service - Orders API', '     Loaded: loaded (/etc/systemd/system/orders.service; enabled; preset: enabled)', '    Drop-In: /etc/systemd/system/orders.service.d',
    '             └─override.conf, credentials.conf', '     Active: active (running) since Mon 2026-11-30 09:12:45 UTC; 1 day 1h ago', `   Main PID: 2211 (java)`, '      Tasks: 41 (limit: 4557)',
    '     Memory: 281.3M', '        CPU: 12min 1.102s', `     CGroup: /system.slice/orders.service`, '             └─2211 java -Xmx512m -jar /opt/orders/orders.jar', '',
    ...Array.from({ length: 10 }, (_, i) => `Dec 01 10:12:${String(10 + i)} web01 ${journalMessage(rng)}`), '',
    '● nginx.service - A high performance web server and a reverse proxy server', '     Loaded: loaded (/lib/systemd/system/nginx.service; enabled; preset: enabled)',
    '     Active: active (running) since Mon 2026-11-30 09:10:02 UTC; 1 day 1h ago', '       Docs: man:nginx(8)', '    Process: 812 ExecStartPre=/usr/sbin/nginx -t -q -g daemon on; master_process on; (code=exited, status=0/SUCCESS)',
    '   Main PID: 815 (nginx)', '', '● ssh.service - OpenBSD Secure Shell server', '     Loaded: loaded (/lib/systemd/system/ssh.service; enabled; preset: enabled)',
    '     Active: active (running) since Mon 2026-11-30 09:09:58 UTC; 1 day 1h ago', '       Docs: man:sshd(8)', '             man:sshd_config(5)', `Invocation: ${rng.hex(32)}`]));
  files.push(ordinary('systemctl show orders', ['Type=simple', 'Restart=on-failure', `InvocationID=${rng.hex(32)}`, 'MainPID=2211', 'LoadCredential=db-password:/etc/orders/db-password',
    'LoadCredentialEncrypted=api-token:/etc/credstore.encrypted/orders-api-token', 'SetCredential=', 'Environment=LOG_LEVEL=info PASSWORD_FILE=%d/db-password TOKEN_FILE=/run/credentials/orders.service/api-token',
    'EnvironmentFiles=/etc/default/orders (ignore_errors=yes)', `ExecMainStartTimestamp=Mon 2026-11-30 09:12:45 UTC`, 'PrivateTmp=yes', 'ProtectSystem=strict', 'NoNewPrivileges=yes',
    'KeyringMode=private', 'ProtectKernelTunables=yes', 'CapabilityBoundingSet=', `ControlGroupId=${rng.range(1000, 9999)}`]));
  const ipAddr: string[] = [];
  ['lo', 'enp1s0', 'wlp2s0', 'podman0', 'veth0', 'wg0'].forEach((ifc, i) => {
    const mac = Array.from({ length: 6 }, () => rng.hex(2)).join(':');
    ipAddr.push(`${i + 1}: ${ifc}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu ${ifc === 'wg0' ? 1420 : 1500} qdisc fq_codel state UP group default qlen 1000`,
      `    link/ether ${mac} brd ff:ff:ff:ff:ff:ff`, `    inet ${ip4(rng)}/24 brd 10.0.0.255 scope global dynamic noprefixroute ${ifc}`, '       valid_lft 85421sec preferred_lft 85421sec',
      `    inet6 fe80::${rng.hex(4)}:${rng.hex(4)}:${rng.hex(4)}:${rng.hex(4)}/64 scope link noprefixroute`, '       valid_lft forever preferred_lft forever');
  });
  files.push(ordinary('ip addr', ipAddr));
  files.push(ordinary('ss -tlnp', ['State  Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess', ...Array.from({ length: 40 }, () =>
    `LISTEN 0      ${rng.pick([128, 511, 4096])}    ${rng.pick(['0.0.0.0', '127.0.0.1', '[::]', '10.0.0.4'])}:${rng.pick([22, 80, 443, 5432, 6379, 8080, 9090, 9100, 53])}        0.0.0.0:*    users:(("${rng.pick(['sshd', 'nginx', 'postgres', 'redis-server', 'java', 'node_exporter'])}",pid=${rng.range(300, 9999)},fd=${rng.range(3, 30)}))`)]));
  files.push(ordinary('nft list ruleset', nftRuleset(rng)));
  files.push(ordinary('etc/apt/sources.list.d/debian.sources', ['Types: deb deb-src', 'URIs: https://deb.debian.org/debian', 'Suites: bookworm bookworm-updates', 'Components: main contrib non-free-firmware',
    'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg', '', 'Types: deb', 'URIs: https://apt.postgresql.org/pub/repos/apt', 'Suites: bookworm-pgdg', 'Components: main', 'Signed-By:',
    ...K.pgpBlock(rng, 'PUBLIC KEY', 1100).text.trimEnd().split('\n').map((l) => (l === '' ? ' .' : ` ${l}`))]));
  files.push(ordinary('etc/apt/sources.list', ['deb [arch=amd64 signed-by=/etc/apt/keyrings/docker.asc] https://download.docker.com/linux/debian bookworm stable',
    'deb [signed-by=/usr/share/keyrings/nodesource.gpg] https://deb.nodesource.com/node_20.x nodistro main', 'deb http://security.debian.org/debian-security bookworm-security main contrib',
    '# deb-src http://deb.debian.org/debian bookworm main', `deb [trusted=no] https://repo.example.com/apt/${rng.hex(12)} stable main`]));
  files.push(ordinary('podman inspect nginx', podmanInspect(rng)));
  files.push(ordinary('podman images --digests', ['REPOSITORY                TAG         DIGEST                                                                   IMAGE ID      CREATED       SIZE',
    ...Array.from({ length: 30 }, () => `${rng.pick(['docker.io/library/nginx', 'ghcr.io/acme/orders', 'quay.io/prometheus/node-exporter', 'docker.io/library/postgres'])}  ${rng.pick(['1.27', 'latest', '16', 'v1.8.2'])}  sha256:${rng.hex(64)}  ${rng.hex(12)}  ${rng.range(1, 9)} weeks ago   ${rng.range(10, 900)} MB`)]));
  files.push(ordinary('podman ps -a --no-trunc', Array.from({ length: 25 }, () => `${rng.hex(64)}  ${rng.pick(['docker.io/library/nginx:1.27', 'ghcr.io/acme/orders:1.4.2'])}  ${rng.pick(['nginx -g daemon off;', 'orders'])}  2 days ago  Up 2 days  0.0.0.0:${rng.range(8000, 8999)}->80/tcp  ${rng.pick(['web', 'orders', 'cache'])}-${rng.str('abcdefghijklmnopqrstuvwxyz', 6)}`)));
  files.push(ordinary('env', ['SHELL=/bin/bash', 'PWD=/home/alice', 'OLDPWD=/srv/app', 'LOGNAME=alice', 'XDG_SESSION_TYPE=tty', 'HOME=/home/alice', 'LANG=en_US.UTF-8',
    `LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:st=37;44:ex=01;32:*.tar=01;31:*.tgz=01;31:*.zip=01;31:*.jpg=01;35:*.png=01;35`,
    'SSH_AUTH_SOCK=/run/user/1000/keyring/ssh', 'GPG_AGENT_INFO=/run/user/1000/gnupg/S.gpg-agent:0:1', 'KRB5CCNAME=FILE:/tmp/krb5cc_1000', `SSH_CONNECTION=10.0.0.2 50122 10.0.0.4 22`,
    'XDG_RUNTIME_DIR=/run/user/1000', `INVOCATION_ID=${rng.hex(32)}`, 'npm_config_user_agent=npm/10.8.2 node/v20.18.1 linux x64 workspaces/false', 'npm_package_name=orders',
    'npm_lifecycle_event=build', 'npm_config_cache=/home/alice/.npm', 'npm_config_userconfig=/home/alice/.npmrc', 'PASSWORD_STORE_DIR=/home/alice/.password-store', 'GIT_ASKPASS=/usr/lib/git-core/git-gui--askpass',
    'SSH_ASKPASS=/usr/bin/ssh-askpass', 'SUDO_ASKPASS=/usr/bin/ssh-askpass', 'PATH=/home/alice/.local/bin:/usr/local/bin:/usr/bin:/bin', '_=/usr/bin/env']));
  files.push(ordinary('cat /proc/cpuinfo (one core)', ['processor\t: 0', 'vendor_id\t: AuthenticAMD', 'model name\t: AMD EPYC 7B13', 'microcode\t: 0x1000065', 'cache size\t: 512 KB',
    'flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl nonstop_tsc cpuid extd_apicid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm cmp_legacy cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw topoext invpcid_single ssbd ibrs ibpb stibp vmmcall fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid rdseed adx smap clflushopt clwb sha_ni xsaveopt xsavec xgetbv1 xsaves clzero xsaveerptr rdpru arat npt nrip_save umip vaes vpclmulqdq rdpid fsrm',
    'bugs\t\t: sysret_ss_attrs null_seg spectre_v1 spectre_v2 spec_store_bypass srso', 'bogomips\t: 4899.99', 'TLB size\t: 2560 4K pages', 'address sizes\t: 48 bits physical, 48 bits virtual']));
  files.push(ordinary('curl -sI https://www.example.com', ['HTTP/2 200', 'content-type: text/html; charset=UTF-8', `etag: "${rng.hex(32)}"`, 'cache-control: max-age=604800',
    `x-request-id: ${rng.uuid()}`, `x-amz-cf-id: ${rng.str(B64URL, 56)}==`, `x-amz-request-id: ${rng.hex(16).toUpperCase()}`, `x-amz-id-2: ${rng.bytes(56).toString('base64')}`,
    'strict-transport-security: max-age=63072000; includeSubDomains; preload', `content-security-policy: default-src 'self'; script-src 'self' 'nonce-${rng.bytes(16).toString('base64')}'`,
    'www-authenticate: Bearer realm="api", error="invalid_token"', `set-cookie: __cf_bm=${rng.str(B64URL, 40)}; path=/; expires=Tue, 01-Dec-26 18:00:00 GMT; HttpOnly; Secure`]));
  return files;
}

function nftRuleset(rng: Rng): string[] {
  const lines = ['table inet filter {', '\tset allowed_ssh {', '\t\ttype ipv4_addr', '\t\tflags interval', `\t\telements = { ${Array.from({ length: 6 }, () => `${ip4(rng)}/32`).join(', ')} }`, '\t}',
    '\tchain input {', '\t\ttype filter hook input priority filter; policy drop;', '\t\tct state established,related accept', '\t\tct state invalid drop', '\t\tiifname "lo" accept',
    '\t\tip saddr @allowed_ssh tcp dport 22 accept', '\t\ttcp dport { 80, 443 } accept', '\t\tudp dport 51820 accept comment "wireguard"', '\t\ticmp type echo-request limit rate 5/second accept'];
  for (let i = 0; i < 80; i++) lines.push(`\t\tip saddr ${ip4(rng)} tcp dport ${rng.pick([5432, 6379, 9100, 8080])} ct state new counter packets ${rng.int(99999)} bytes ${rng.int(9999999)} accept comment "rule-${rng.hex(8)}"`);
  lines.push('\t}', '\tchain forward {', '\t\ttype filter hook forward priority filter; policy drop;', '\t}', '}', 'table ip nat {', '\tchain postrouting {',
    '\t\ttype nat hook postrouting priority srcnat; policy accept;', '\t\toifname "enp1s0" masquerade', '\t}', '}');
  return lines;
}

function podmanInspect(rng: Rng): string[] {
  return JSON.stringify([{
    Id: rng.hex(64), Created: '2026-11-30T09:10:02.481516Z', Path: '/docker-entrypoint.sh', Args: ['nginx', '-g', 'daemon off;'],
    State: { OciVersion: '1.2.0', Status: 'running', Running: true, Pid: 815, ConmonPid: 811, StartedAt: '2026-11-30T09:10:02.77Z', CgroupPath: `/machine.slice/libpod-${rng.hex(64)}.scope` },
    Image: rng.hex(64), ImageDigest: `sha256:${rng.hex(64)}`, ImageName: 'docker.io/library/nginx:1.27', Rootfs: '', Pod: '', ResolvConfPath: `/run/containers/storage/overlay-containers/${rng.hex(64)}/userdata/resolv.conf`,
    Name: 'web', RestartCount: 0, Driver: 'overlay', MountLabel: 'system_u:object_r:container_file_t:s0:c123,c456', ProcessLabel: 'system_u:system_r:container_t:s0:c123,c456',
    GraphDriver: { Name: 'overlay', Data: { LowerDir: `/var/lib/containers/storage/overlay/${rng.hex(64)}/diff:/var/lib/containers/storage/overlay/${rng.hex(64)}/diff`, UpperDir: `/var/lib/containers/storage/overlay/${rng.hex(64)}/diff` } },
    Mounts: [{ Type: 'bind', Source: '/srv/web/conf', Destination: '/etc/nginx/conf.d', Options: ['rbind'], RW: false }, { Type: 'volume', Name: rng.hex(64), Source: `/var/lib/containers/storage/volumes/${rng.hex(64)}/_data`, Destination: '/var/cache/nginx' }],
    Config: {
      Hostname: rng.hex(12), User: '', Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'TERM=xterm', 'container=podman', 'NGINX_VERSION=1.27.3', 'NJS_VERSION=0.8.8',
        'NJS_RELEASE=1~bookworm', 'PKG_RELEASE=1~bookworm', 'DYNPKG_RELEASE=1~bookworm', `HOSTNAME=${rng.hex(12)}`, 'HOME=/root', 'PASSWORD_FILE=/run/secrets/web_password', 'TOKEN_FILE=/run/secrets/token'],
      Cmd: ['nginx', '-g', 'daemon off;'], Image: 'docker.io/library/nginx:1.27', Entrypoint: ['/docker-entrypoint.sh'], StopSignal: 'SIGQUIT',
      Labels: { maintainer: 'NGINX Docker Maintainers <docker-maint@nginx.com>', 'io.containers.autoupdate': 'registry', 'org.opencontainers.image.revision': rng.hex(40) },
      Annotations: { 'io.container.manager': 'libpod', 'org.opencontainers.image.stopSignal': '3' }, Secrets: [{ ID: rng.str('0123456789abcdef', 25), Name: 'web_password' }],
    },
    HostConfig: { Binds: ['/srv/web/conf:/etc/nginx/conf.d:ro,rprivate,rbind'], NetworkMode: 'bridge', PortBindings: { '80/tcp': [{ HostIp: '', HostPort: '8080' }] }, SecurityOpt: [], CapDrop: ['CAP_AUDIT_WRITE', 'CAP_MKNOD'] },
  }], null, 4).split('\n');
}
