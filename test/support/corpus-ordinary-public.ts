/**
 * Ordinary outputs, part 1: the public, high-entropy material a host is full of (digests, commit ids, UUIDs, public
 * keys, certificates, package indexes). A masker that hides any of it is wrong, and the corpus counts each such line.
 */
import * as K from './corpus-keys.js';
import { B64, DIGITS, Rng } from './corpus-random.js';
import type { CorpusFile } from './secret-corpus.js';

export const ordinary = (name: string, lines: string[]): CorpusFile => ({ name, text: lines.join('\n') + '\n', secrets: [] });

const STEMS = ['libc6', 'libssl3', 'openssl', 'coreutils', 'bash', 'systemd', 'udev', 'dbus', 'libsystemd0', 'python3', 'perl', 'gcc', 'make',
  'curl', 'libcurl4', 'git', 'vim', 'nano', 'less', 'openssh-server', 'openssh-client', 'nginx', 'apache2', 'postgresql', 'mariadb-server', 'redis',
  'podman', 'buildah', 'crun', 'conmon', 'netavark', 'aardvark-dns', 'nftables', 'iproute2', 'iputils-ping', 'tzdata', 'locales', 'gnupg',
  'apt', 'dpkg', 'debconf', 'sudo', 'passwd', 'login', 'libpam-modules', 'libpam-runtime', 'ca-certificates', 'wpasupplicant', 'netplan.io',
  'network-manager', 'rsyslog', 'logrotate', 'cron', 'util-linux', 'mount', 'e2fsprogs', 'xfsprogs', 'lvm2', 'cryptsetup', 'grub-efi-amd64',
  'linux-image-6.1.0-28-amd64', 'firmware-linux-free', 'zlib1g', 'liblzma5', 'libzstd1', 'libgnutls30', 'libkrb5-3', 'libgssapi-krb5-2',
  'libldap-2.5-0', 'libsasl2-2', 'libsqlite3-0', 'libxml2', 'libyaml-0-2', 'libjson-c5', 'nodejs', 'golang-1.22', 'rustc', 'cargo', 'jq',
  'rsync', 'tar', 'gzip', 'xz-utils', 'zstd', 'unzip', 'htop', 'strace', 'tcpdump', 'lsof', 'procps', 'psmisc', 'bind9-host', 'dnsutils'];
const SUFFIXES = ['', '-dev', '-doc', '-common', '-data', '-bin', '-utils', '-dbg', '-tools', '-l10n', '-minimal', '-extra', '-modules', '-plugins', '-runtime', '-examples', '-locales'];

function packageNames(rng: Rng, n: number): string[] {
  const names = new Set<string>();
  while (names.size < n) names.add(rng.pick(STEMS) + rng.pick(SUFFIXES));
  return [...names].sort();
}
const version = (rng: Rng) => `${rng.range(0, 12)}.${rng.range(0, 40)}.${rng.range(0, 20)}-${rng.range(1, 9)}${rng.pick(['', '+deb12u1', '+b1', 'ubuntu0.24.04.1', '~deb12u2'])}`;
const b64 = (rng: Rng, bytes: number) => rng.bytes(bytes).toString('base64');
const FILES = ['bin', 'sbin', 'lib', 'share'].flatMap((d) => STEMS.map((s) => `/usr/${d}/${s}`));

export function publicFiles(rng: Rng): CorpusFile[] {
  const pkgs = packageNames(rng, 1400);
  const files: CorpusFile[] = [];
  files.push(ordinary('sha256sum /usr/bin/*', FILES.slice(0, 300).map((f) => `${rng.hex(64)}  ${f}`)));
  files.push(ordinary('sha512sum release/*', Array.from({ length: 150 }, (_, i) => `${rng.hex(128)}  release/orders-1.4.${i}.tar.gz`)));
  files.push(ordinary('sha1sum /etc/*.conf', FILES.slice(100, 250).map((f) => `${rng.hex(40)}  ${f}.conf`)));
  files.push(ordinary('md5sum var/lib/dpkg/info/coreutils.md5sums', FILES.slice(0, 200).map((f) => `${rng.hex(32)}  ${f.slice(1)}`)));
  files.push(ordinary('SHA256SUMS', Array.from({ length: 60 }, (_, i) => `${rng.hex(64)} *debian-12.${i % 9}.0-amd64-${['netinst', 'DVD-1', 'DVD-2', 'BD-1'][i % 4]}.iso`)));

  const stanzas: string[] = [];
  for (const p of pkgs.slice(0, 260)) {
    stanzas.push(`Package: ${p}`, `Version: ${version(rng)}`, `Installed-Size: ${rng.range(10, 90000)}`, `Maintainer: Debian ${p} Maintainers <pkg-${p}@lists.debian.org>`,
      `Architecture: ${rng.pick(['amd64', 'all'])}`, `Depends: libc6 (>= 2.34), ${rng.pick(pkgs)} (>= ${version(rng)})`, `Description: ${p} utilities for the system`,
      `Homepage: https://www.example.org/${p}`, `Description-md5: ${rng.hex(32)}`, `Section: ${rng.pick(['utils', 'libs', 'admin', 'net', 'devel', 'doc'])}`, `Priority: optional`,
      `Filename: pool/main/${p[0]}/${p}/${p}_${version(rng)}_amd64.deb`, `Size: ${rng.range(2000, 9000000)}`, `MD5sum: ${rng.hex(32)}`, `SHA256: ${rng.hex(64)}`, '');
  }
  files.push(ordinary('var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages', stanzas));
  const release = ['Origin: Debian', 'Label: Debian', 'Suite: stable', 'Version: 12.8', 'Codename: bookworm', 'Date: Sat, 09 Nov 2026 10:45:02 UTC',
    'Acquire-By-Hash: yes', 'Architectures: all amd64 arm64 armel armhf i386 mips64el mipsel ppc64el s390x', 'Components: main contrib non-free-firmware non-free', 'MD5Sum:'];
  for (let i = 0; i < 120; i++) release.push(` ${rng.hex(32)} ${String(rng.range(100, 9_000_000)).padStart(9)} main/binary-${rng.pick(['amd64', 'arm64', 'i386'])}/Packages${rng.pick(['', '.xz', '.gz'])}`);
  release.push('SHA256:');
  for (let i = 0; i < 120; i++) release.push(` ${rng.hex(64)} ${String(rng.range(100, 9_000_000)).padStart(9)} main/i18n/Translation-${rng.pick(['en', 'de', 'fr', 'ja', 'pt_BR'])}${rng.pick(['', '.bz2'])}`);
  files.push(ordinary('var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_InRelease', release));

  const dpkg = ['Desired=Unknown/Install/Remove/Purge/Hold', '| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend',
    '|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)', '||/ Name                           Version                        Architecture Description',
    '+++-==============================-==============================-============-================================================'];
  for (const p of pkgs) dpkg.push(`ii  ${p.padEnd(30)} ${version(rng).padEnd(30)} ${rng.pick(['amd64', 'all  '])}        ${p} - ${rng.pick(['shared library', 'command-line tools', 'documentation', 'development files', 'runtime support'])}`);
  files.push(ordinary('dpkg -l', dpkg));

  const authors = ['Alice Example <alice@example.com>', 'Bob Builder <bob@example.org>', 'Carol Ops <carol@example.net>', 'dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>'];
  const subjects = ['Fix token refresh race in session store', 'Rotate the password hashing cost to 12', 'Bump openssl from 3.0.13 to 3.0.15', 'Add api_key validation',
    'Remove hard-coded secret from tests', 'Merge pull request #%d from acme/feature/auth', 'Update the private key loader for PKCS#8', 'docs: explain credentials lookup order'];
  files.push(ordinary('git log --format="%H %h %an %s"', Array.from({ length: 700 }, (_, i) => {
    const id = rng.hex(40);
    return `${id} ${id.slice(0, 7)} ${rng.pick(authors).split(' <')[0]} ${rng.pick(subjects).replace('%d', String(1000 + i))}`;
  })));
  const gitLog: string[] = [];
  for (let i = 0; i < 90; i++) {
    gitLog.push(`commit ${rng.hex(40)}${i === 0 ? ' (HEAD -> main, origin/main)' : ''}`, ...(i % 7 === 3 ? [`Merge: ${rng.hex(7)} ${rng.hex(7)}`] : []), `Author: ${rng.pick(authors)}`,
      `Date:   Tue Dec 1 ${String(10 + (i % 12)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00 2026 +0000`, '', `    ${rng.pick(subjects).replace('%d', String(i))}`, '',
      `    Signed-off-by: ${rng.pick(authors)}`, '');
  }
  files.push(ordinary('git log', gitLog));
  files.push(ordinary('git show-ref', Array.from({ length: 160 }, (_, i) => `${rng.hex(40)} refs/${rng.pick(['heads', 'tags', 'remotes/origin'])}/${rng.pick(['main', 'release', 'v1.4', 'feature/token-cache', 'fix/password-reset'])}-${i}`)));
  files.push(ordinary('git cat-file -p HEAD', [`tree ${rng.hex(40)}`, `parent ${rng.hex(40)}`, `author Alice Example <alice@example.com> 1764590000 +0000`,
    `committer GitHub <noreply@github.com> 1764590000 +0000`, `gpgsig -----BEGIN PGP SIGNATURE-----`, ' ', ...K.pgpBlock(rng, 'PUBLIC KEY', 500).body.map((l) => ` ${l}`),
    ` =${b64(rng, 3)}`, ' -----END PGP SIGNATURE-----', '', 'Merge pull request #1422 from acme/fix/token-expiry']));

  const blkid: string[] = [];
  const fstab = ['# /etc/fstab: static file system information.', '#', "# Use 'blkid' to print the universally unique identifier for a", '# <file system> <mount point>   <type>  <options>       <dump>  <pass>'];
  for (let i = 0; i < 24; i++) {
    const uuid = rng.uuid();
    blkid.push(`/dev/${rng.pick(['sda', 'sdb', 'nvme0n1p', 'vda'])}${i + 1}: UUID="${uuid}" BLOCK_SIZE="4096" TYPE="${rng.pick(['ext4', 'xfs', 'swap', 'crypto_LUKS'])}" PARTUUID="${rng.uuid()}"`);
    if (i < 8) fstab.push(`UUID=${uuid} /${['', 'home', 'var', 'srv', 'data', 'backup', 'opt', 'tmp'][i]} ${rng.pick(['ext4', 'xfs'])} defaults,noatime 0 ${i ? 2 : 1}`);
  }
  files.push(ordinary('blkid', blkid), ordinary('etc/fstab (no secrets)', [...fstab, '//nas.internal/media /mnt/media cifs credentials=/etc/samba/media.cred,uid=1000 0 0']));
  files.push(ordinary('lsblk -f', Array.from({ length: 30 }, (_, i) => `${i % 3 ? '├─' : ''}sd${'abc'[i % 3]}${i} ${rng.pick(['ext4 1.0', 'xfs', 'vfat FAT32', 'swap 1', 'LVM2_member LVM2 001'])} ${rng.uuid()} ${rng.range(1, 900)}G ${rng.range(1, 99)}% /mnt/d${i}`)));
  files.push(ordinary('etc/machine-id', [rng.hex(32)]), ordinary('proc/sys/kernel/random/boot_id', [rng.uuid()]));
  files.push(ordinary('hostnamectl', ['     Static hostname: web01', '           Icon name: computer-vm', '             Chassis: vm 🖴', `          Machine ID: ${rng.hex(32)}`, `             Boot ID: ${rng.hex(32)}`,
    '      Virtualization: kvm', 'Operating System: Debian GNU/Linux 12 (bookworm)', '              Kernel: Linux 6.1.0-28-amd64', '        Architecture: x86-64', `    Hardware Vendor: QEMU`, '  Firmware Version: 1.16.3-debian-1.16.3-2']));
  files.push(ordinary('networkctl status / systemd-id128', Array.from({ length: 30 }, () => `${rng.hex(32)}  ${rng.uuid()}`)));

  const users = ['alice', 'bob', 'carol', 'dave', 'deploy', 'backup', 'ci', 'root'];
  files.push(ordinary('home/alice/.ssh/authorized_keys', Array.from({ length: 40 }, (_, i) =>
    `${i % 5 === 0 ? 'from="10.0.0.0/8",no-agent-forwarding ' : ''}${K.sshPublic(rng, rng.pick(['ed25519', 'rsa', 'ecdsa'] as const))} ${rng.pick(users)}@${rng.pick(['laptop', 'ci-runner', 'bastion', 'desk-42'])}`)));
  files.push(ordinary('home/alice/.ssh/known_hosts', Array.from({ length: 260 }, (_, i) => i % 2
    ? `|1|${b64(rng, 20)}|${b64(rng, 20)} ${K.sshPublic(rng, rng.pick(['ed25519', 'ecdsa'] as const))}`
    : `${rng.pick(['github.com', 'gitlab.example.com', `10.0.${i % 250}.${rng.range(1, 254)}`, `host${i}.internal`])} ${K.sshPublic(rng, rng.pick(['ed25519', 'rsa', 'ecdsa'] as const))}`)));
  files.push(ordinary('ssh-keygen -lf etc/ssh/ssh_host_*_key.pub', Array.from({ length: 40 }, () =>
    `${rng.pick(['256', '3072', '4096', '256'])} SHA256:${b64(rng, 32).replace(/=+$/, '')} root@${rng.pick(['web01', 'db01', 'edge01'])} (${rng.pick(['ED25519', 'RSA', 'ECDSA'])})`)));
  files.push(ordinary('etc/ssh/ssh_host_ed25519_key.pub', [`${K.sshPublic(rng, 'ed25519')} root@web01`]));
  files.push(ordinary('etc/ssh/ssh_host_rsa_key.pub', [`${K.sshPublic(rng, 'rsa')} root@web01`]));

  const bundle: string[] = [];
  for (let i = 0; i < 36; i++) bundle.push(...K.certificate(rng, rng.range(800, 1500)).text.trimEnd().split('\n'));
  files.push(ordinary('etc/ssl/certs/ca-certificates.crt', bundle));
  for (const cn of ['www.example.com', 'api.example.com', 'ISRG Root X1']) files.push(ordinary(`openssl x509 -text -noout (${cn})`, x509Text(rng, cn)));
  files.push(ordinary('openssl s_client -showcerts', ['CONNECTED(00000003)', 'depth=2 C = US, O = Internet Security Research Group, CN = ISRG Root X1', 'verify return:1',
    '---', 'Certificate chain', ' 0 s:CN = www.example.com', '   i:C = US, O = Let\'s Encrypt, CN = R11', ...K.certificate(rng, 1300).text.trimEnd().split('\n'),
    ...K.certificate(rng, 1290).text.trimEnd().split('\n'), '---', 'Server certificate', 'subject=CN = www.example.com', '---', 'SSL handshake has read 4821 bytes and written 394 bytes',
    'Verification: OK', '---', 'New, TLSv1.3, Cipher is TLS_AES_256_GCM_SHA384', `    Session-ID: ${rng.hex(64).toUpperCase()}`, '    Session-ID-ctx: ', `    Resumption PSK: ${rng.hex(96).toUpperCase()}`,
    '    PSK identity: None', '    PSK identity hint: None', '    TLS session ticket lifetime hint: 604800 (seconds)', '    Verify return code: 0 (ok)']));

  for (const name of ['etc/apt/keyrings/docker.asc', 'usr/share/keyrings/nodesource.asc', 'etc/apt/trusted.gpg.d/pgdg.asc']) files.push(ordinary(name, K.pgpBlock(rng, 'PUBLIC KEY', 1600).text.trimEnd().split('\n')));
  const gpg = ['/home/alice/.gnupg/pubring.kbx', '-----------------------------'];
  for (let i = 0; i < 25; i++) gpg.push(`pub   rsa4096 2024-0${(i % 9) + 1}-1${i % 10} [SC] [expires: 2027-01-01]`, `      ${rng.hex(40).toUpperCase()}`, `uid           [ultimate] ${rng.pick(authors)}`, `sub   rsa4096 2024-01-10 [E]`, '');
  files.push(ordinary('gpg --list-keys', gpg));

  files.push(ordinary('srv/app/package-lock.json', packageLock(rng, pkgs.slice(0, 260))));
  files.push(ordinary('srv/tool/go.sum', pkgs.slice(0, 220).flatMap((p) => {
    const mod = `github.com/${rng.pick(['acme', 'golang', 'spf13', 'stretchr', 'prometheus'])}/${p.replace(/[^a-z0-9-]/g, '')}`, v = `v${rng.range(0, 3)}.${rng.range(0, 30)}.${rng.range(0, 9)}`;
    return [`${mod} ${v} h1:${b64(rng, 32)}`, `${mod} ${v}/go.mod h1:${b64(rng, 32)}`];
  })));
  files.push(ordinary('srv/site/index.html', ['<!doctype html>', '<html lang="en"><head><meta charset="utf-8">', `<link rel="icon" href="data:image/png;base64,${b64(rng, 600)}">`,
    `<script src="/static/app.js" integrity="sha384-${b64(rng, 48)}" crossorigin="anonymous"></script>`, `<link rel="stylesheet" href="/static/site.css" integrity="sha256-${b64(rng, 32)}">`,
    `<meta name="csrf-param" content="authenticity_token">`, '</head><body><h1>Orders</h1>', `<img alt="logo" src="data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#0a7"/></svg>').toString('base64')}">`, '</body></html>']));
  files.push(ordinary('dig TXT selector1._domainkey.example.com', ['; <<>> DiG 9.18.28-1~deb12u2-Debian <<>> TXT selector1._domainkey.example.com', ';; ANSWER SECTION:',
    `selector1._domainkey.example.com. 3600 IN TXT "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${b64(rng, 180).slice(0, 200)}" "${b64(rng, 120).slice(0, 150)}IDAQAB"`,
    `example.com. 300 IN TXT "google-site-verification=${rng.str(B64.slice(0, 62), 43)}"`, `example.com. 300 IN TXT "v=spf1 include:_spf.google.com ~all"`, ';; Query time: 12 msec']));
  files.push(ordinary('kubectl get configmap ca-bundle -o yaml', ['apiVersion: v1', 'binaryData:', `  logo.png: ${b64(rng, 900)}`, 'data:',
    '  ca.crt: |', ...K.certificate(rng, 900).text.trimEnd().split('\n').map((l) => `    ${l}`), 'kind: ConfigMap', 'metadata:', '  name: ca-bundle', `  resourceVersion: "${rng.str(DIGITS, 7)}"`, `  uid: ${rng.uuid()}`]));
  files.push(ordinary('etc/cloud/cloud.cfg.d/99-user-data.yaml', ['#cloud-config', 'write_files:', '  - path: /usr/local/bin/motd.sh', '    encoding: b64', '    permissions: "0755"',
    `    content: ${Buffer.from('#!/bin/sh\necho "Welcome to $(hostname) - managed by Airlock"\nuptime\n').toString('base64')}`, 'ssh_authorized_keys:',
    `  - ${K.sshPublic(rng, 'ed25519')} ops@example.com`, 'ssh_pwauth: false', 'disable_root: true', 'chpasswd:', '  expire: false']));
  files.push(ordinary('home/alice/.kube/config (exec plugin)', ['apiVersion: v1', 'clusters:', '- cluster:', `    certificate-authority-data: ${Buffer.from(K.certificate(rng, 900).text).toString('base64')}`,
    '    server: https://A1B2C3D4E5F6.gr7.eu-west-1.eks.amazonaws.com', '  name: eks-prod', 'users:', '- name: eks-prod', '  user:', '    exec:', '      apiVersion: client.authentication.k8s.io/v1beta1',
    '      command: aws', '      args: ["eks", "get-token", "--cluster-name", "prod"]', '      interactiveMode: Never', '      provideClusterInfo: false']));
  return files;
}

function x509Text(rng: Rng, cn: string): string[] {
  const colonHex = (bytes: number) => Array.from({ length: bytes }, () => rng.hex(2)).join(':');
  const lines = ['Certificate:', '    Data:', '        Version: 3 (0x2)', '        Serial Number:', `            ${colonHex(18)}`, '        Signature Algorithm: sha256WithRSAEncryption',
    "        Issuer: C = US, O = Let's Encrypt, CN = R11", '        Validity', '            Not Before: Oct  1 00:00:00 2026 GMT', '            Not After : Dec 30 23:59:59 2026 GMT',
    `        Subject: CN = ${cn}`, '        Subject Public Key Info:', '            Public Key Algorithm: rsaEncryption', '                Public-Key: (2048 bit)', '                Modulus:'];
  lines.push(`                    00:${colonHex(14)}:`);
  for (let i = 0; i < 17; i++) lines.push(`                    ${colonHex(15)}:`);
  lines.push(`                    ${colonHex(2)}`, '                Exponent: 65537 (0x10001)', '        X509v3 extensions:', '            X509v3 Key Usage: critical', '                Digital Signature, Key Encipherment',
    '            X509v3 Subject Key Identifier: ', `                ${colonHex(20).toUpperCase()}`, '            X509v3 Authority Key Identifier: ', `                ${colonHex(20).toUpperCase()}`,
    `            X509v3 Subject Alternative Name: `, `                DNS:${cn.replace(/ /g, '-').toLowerCase()}`, '            CT Precertificate SCTs: ', '                Signed Certificate Timestamp:',
    `                    Log ID    : ${colonHex(16).toUpperCase()}:`, `                                ${colonHex(16).toUpperCase()}`, '    Signature Algorithm: sha256WithRSAEncryption', '    Signature Value:');
  for (let i = 0; i < 14; i++) lines.push(`        ${colonHex(18)}${i < 13 ? ':' : ''}`);
  return lines;
}

function packageLock(rng: Rng, pkgs: string[]): string[] {
  const lines = ['{', '  "name": "orders",', '  "version": "1.4.2",', '  "lockfileVersion": 3,', '  "requires": true,', '  "packages": {'];
  pkgs.forEach((p, i) => {
    const n = p.replace(/[^a-z0-9-]/g, '');
    lines.push(`    "node_modules/${n}": {`, `      "version": "${rng.range(0, 9)}.${rng.range(0, 30)}.${rng.range(0, 9)}",`, `      "resolved": "https://registry.npmjs.org/${n}/-/${n}-1.0.${i}.tgz",`,
      `      "integrity": "sha512-${b64(rng, 64)}",`, `      "license": "MIT"`, `    }${i < pkgs.length - 1 ? ',' : ''}`);
  });
  lines.push('  }', '}');
  return lines;
}

