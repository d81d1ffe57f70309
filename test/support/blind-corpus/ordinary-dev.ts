/**
 * Secret-free developer and container output: git log/diff, Terraform plans, docker inspect,
 * kubectl describe, image digests, lockfile integrity hashes, public keys and certificates.
 */
import type { Rng } from './rng.js';
import type { OrdinarySpec } from './types.js';
import { domain, fqdn, host, ip, iso, text, user } from './context.js';
import { pemBlock, pemBody, sshPublicLine } from './pem.js';

const gitLog: OrdinarySpec = {
  name: 'git log --stat -n 6',
  make(r) {
    const lines: string[] = [];
    const msgs = ['nginx: raise client_max_body_size for uploads', 'ci: pin actions to commit SHAs', 'db: add index on orders(created_at)', 'docs: explain how secrets reach the pods',
      'deps: bump golang.org/x/crypto to v0.31.0', 'config: read DB password from ${DB_PASSWORD} instead of the file'];
    for (const m of msgs.slice(0, r.int(4, 6))) {
      lines.push(`commit ${r.hex(40)}`, `Author: ${user(r)} <${user(r)}@${domain(r)}>`, `Date:   Sun Dec ${r.int(1, 6)} 0${r.int(0, 9)}:${r.int(10, 59)}:${r.int(10, 59)} 2026 +0000`, '', `    ${m}`, '',
        `    Change-Id: I${r.hex(40)}`, '', ` ${r.pick(['deploy/nginx.conf', 'ci/build.yml', 'db/migrations/0042.sql', 'README.md'])} | ${r.int(1, 40)} ${'+'.repeat(r.int(1, 9))}${'-'.repeat(r.int(0, 4))}`,
        ` 1 file changed, ${r.int(1, 30)} insertions(+), ${r.int(0, 9)} deletions(-)`, '');
    }
    return text(lines);
  },
};

const gitDiff: OrdinarySpec = {
  name: 'git diff HEAD~1 -- config/',
  make(r) {
    const a = r.hex(7);
    const b = r.hex(7);
    return text([`diff --git a/config/app.yml b/config/app.yml`, `index ${a}..${b} 100644`, '--- a/config/app.yml', '+++ b/config/app.yml', '@@ -1,18 +1,20 @@', ' app:', '   name: orders',
      '-  debug: true', '+  debug: false', ' database:', '   host: db-prod-1', '   port: 5432', '-  password: changeme', '+  password: ${DB_PASSWORD}', '+  password_file: /run/secrets/db_password',
      ' cache:', '   url: redis://redis:6379/0', ' auth:', '-  jwt_secret: "<set me>"', '+  jwt_secret: ${JWT_SECRET:?required}', '   issuer: https://auth.example.com',
      `diff --git a/config/ci.yml b/config/ci.yml`, `index ${r.hex(7)}..${r.hex(7)} 100644`, '--- a/config/ci.yml', '+++ b/config/ci.yml', '@@ -10,9 +10,9 @@ jobs:', '   build:',
      '     runs-on: ubuntu-24.04', '     steps:', `-      - uses: actions/checkout@${r.hex(40)} # v4.1.1`, `+      - uses: actions/checkout@${r.hex(40)} # v4.2.2`,
      `-      - uses: docker/login-action@${r.hex(40)} # v3.0.0`, `+      - uses: docker/login-action@${r.hex(40)} # v3.3.0`, '         with:', '           registry: ghcr.io',
      '           username: ${{ github.actor }}', '           password: ${{ secrets.GITHUB_TOKEN }}', '       - run: make build', `diff --git a/config/keys/deploy.pub b/config/keys/deploy.pub`,
      'new file mode 100644', `index 0000000..${r.hex(7)}`, '--- /dev/null', '+++ b/config/keys/deploy.pub', '@@ -0,0 +1 @@', `+${sshPublicLine(r, `deploy@${host(r)}`)}`]);
  },
};

const terraform: OrdinarySpec = {
  name: 'terraform plan',
  make(r) {
    return text(['Terraform used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:', '  + create', '  ~ update in-place', '',
      'Terraform will perform the following actions:', '', '  # aws_db_instance.main will be updated in-place', '  ~ resource "aws_db_instance" "main" {', `        id                      = "db-${r.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 26)}"`,
      '      ~ instance_class          = "db.t3.medium" -> "db.t3.large"', '        password                = (sensitive value)', `        resource_id             = "db-${r.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 26)}"`,
      '        tags                    = {', '            "env" = "prod"', '        }', '        # (51 unchanged attributes hidden)', '    }', '',
      '  # aws_iam_access_key.ci will be created', '  + resource "aws_iam_access_key" "ci" {', '      + create_date                    = (known after apply)', '      + encrypted_secret               = (known after apply)',
      '      + id                             = (known after apply)', '      + secret                         = (sensitive value)', '      + ses_smtp_password_v4           = (sensitive value)', '      + status                         = "Active"', '      + user                           = "ci"', '    }', '',
      '  # random_password.db will be created', '  + resource "random_password" "db" {', '      + bcrypt_hash = (sensitive value)', '      + id          = (known after apply)', '      + length      = 32',
      '      + result      = (sensitive value)', '      + special     = true', '    }', '', 'Plan: 2 to add, 1 to change, 0 to destroy.', '', 'Changes to Outputs:',
      `  ~ db_endpoint = "main.${r.alnum(12).toLowerCase()}.eu-central-1.rds.amazonaws.com:5432"`, '  + ci_secret   = (sensitive value)', '', 'Note: You didn\'t use the -out option to save this plan.',
      `# state lineage ${r.uuid()} serial ${r.int(10, 400)}`]);
  },
};

const dockerInspect: OrdinarySpec = {
  name: 'docker inspect web',
  make(r) {
    const id = r.hex(64);
    const img = r.hex(64);
    const obj = [{ Id: id, Created: iso(r), Path: '/docker-entrypoint.sh', Args: ['nginx', '-g', 'daemon off;'],
      State: { Status: 'running', Running: true, Paused: false, Restarting: false, OOMKilled: false, Dead: false, Pid: r.int(1000, 99999), ExitCode: 0, StartedAt: iso(r) },
      Image: `sha256:${img}`, ResolvConfPath: `/var/lib/docker/containers/${id}/resolv.conf`, HostnamePath: `/var/lib/docker/containers/${id}/hostname`,
      LogPath: `/var/lib/docker/containers/${id}/${id}-json.log`, Name: '/web', RestartCount: 0, Driver: 'overlay2', Platform: 'linux',
      GraphDriver: { Data: { LowerDir: `/var/lib/docker/overlay2/${r.hex(64)}-init/diff`, MergedDir: `/var/lib/docker/overlay2/${r.hex(64)}/merged` }, Name: 'overlay2' },
      Config: { Hostname: id.slice(0, 12), Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'NGINX_VERSION=1.27.3', 'NJS_VERSION=0.8.7', 'PKG_RELEASE=1~bookworm',
        'DB_PASSWORD_FILE=/run/secrets/db_password', 'API_TOKEN=${API_TOKEN}'], Image: `nginx@sha256:${r.hex(64)}`,
        Labels: { 'com.docker.compose.config-hash': r.hex(64), 'com.docker.compose.project': 'site', 'com.docker.compose.service': 'web', 'org.opencontainers.image.revision': r.hex(40) } },
      NetworkSettings: { Networks: { site_default: { IPAddress: `172.18.0.${r.int(2, 9)}`, MacAddress: `02:42:ac:12:00:0${r.int(2, 9)}`, NetworkID: r.hex(64), EndpointID: r.hex(64), Gateway: '172.18.0.1' } } } }];
    return JSON.stringify(obj, null, 4) + '\n';
  },
};

const kubectlDescribe: OrdinarySpec = {
  name: 'kubectl describe pod',
  make(r) {
    const name = `webapp-${r.hex(10)}-${r.chars('abcdefghijklmnopqrstuvwxyz0123456789', 5)}`;
    return text([`Name:             ${name}`, 'Namespace:        prod', 'Priority:         0', 'Service Account:  webapp', `Node:             k8s-node-${r.int(1, 9)}/${ip(r)}`, `Start Time:       Sun, 06 Dec 2026 0${r.int(0, 7)}:12:01 +0000`,
      'Labels:           app.kubernetes.io/name=webapp', `                  pod-template-hash=${r.hex(10)}`, `Annotations:      checksum/config: ${r.hex(64)}`, 'Status:           Running', `IP:               10.244.${r.int(0, 9)}.${r.int(2, 250)}`,
      'Controlled By:  ReplicaSet/webapp', 'Containers:', '  webapp:', `    Container ID:   containerd://${r.hex(64)}`, '    Image:          registry.example.com/webapp:2.4.1',
      `    Image ID:       registry.example.com/webapp@sha256:${r.hex(64)}`, '    Port:           8080/TCP', '    State:          Running', `      Started:      Sun, 06 Dec 2026 0${r.int(0, 7)}:12:04 +0000`, '    Ready:          True',
      '    Restart Count:  0', '    Environment:', "      DATABASE_PASSWORD:  <set to the key 'password' in secret 'webapp-db'>  Optional: false", "      SESSION_SECRET:     <set to the key 'secret' in secret 'webapp-session'>  Optional: false",
      '      LOG_LEVEL:          info', '    Mounts:', `      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-${r.chars('abcdefghijklmnopqrstuvwxyz0123456789', 5)} (ro)`, 'Conditions:',
      '  Type              Status', '  Initialized       True', '  Ready             True', '  ContainersReady   True', '  PodScheduled      True', 'Volumes:', '  kube-api-access:',
      '    Type:                    Projected (a volume that contains injected data from multiple sources)', '    TokenExpirationSeconds:  3607', 'QoS Class:                   Burstable', 'Events:',
      '  Type    Reason     Age   From               Message', '  ----    ------     ----  ----               -------', `  Normal  Scheduled  ${r.int(2, 50)}m   default-scheduler  Successfully assigned prod/${name} to k8s-node-3`,
      `  Normal  Pulled     ${r.int(2, 50)}m   kubelet            Container image "registry.example.com/webapp:2.4.1" already present on machine`, `  Normal  Started    ${r.int(2, 50)}m   kubelet            Started container webapp`]);
  },
};

const imageDigests: OrdinarySpec = {
  name: 'docker images --digests; docker pull',
  make(r) {
    const lines = ['REPOSITORY                        TAG           DIGEST                                                                    IMAGE ID       CREATED        SIZE'];
    const images: [string, string][] = [['nginx', '1.27'], ['postgres', '16-alpine'], ['redis', '7.4'], ['grafana/grafana', '11.3.0'], ['prom/prometheus', 'v2.55.1'], ['registry.example.com/webapp', '2.4.1'],
      ['traefik', 'v3.2'], ['quay.io/keycloak/keycloak', '26.0'], ['alpine', '3.20'], ['debian', 'bookworm-slim']];
    for (const [repo, tag] of images) {
      lines.push(`${repo.padEnd(33)} ${tag.padEnd(13)} sha256:${r.hex(64)}   ${r.hex(12)}   ${r.int(1, 9)} weeks ago    ${r.int(5, 900)}MB`);
    }
    lines.push('', '$ docker pull redis:7.4', '7.4: Pulling from library/redis');
    for (let i = 0; i < 6; i++) lines.push(`${r.hex(12)}: Pull complete`);
    lines.push(`Digest: sha256:${r.hex(64)}`, 'Status: Downloaded newer image for redis:7.4', 'docker.io/library/redis:7.4', '', '$ cosign triangulate registry.example.com/webapp:2.4.1',
      `registry.example.com/webapp:sha256-${r.hex(64)}.sig`, '$ crictl images | head -5', 'IMAGE                                     TAG                 IMAGE ID            SIZE',
      `registry.k8s.io/pause                     3.9                 ${r.hex(13)}       322kB`, `registry.k8s.io/coredns/coredns           v1.11.1             ${r.hex(13)}       18.2MB`,
      `registry.k8s.io/kube-proxy               v1.30.6             ${r.hex(13)}       29MB`, `docker.io/flannel/flannel                 v0.25.7             ${r.hex(13)}       32MB`);
    return text(lines);
  },
};

const lockfiles: OrdinarySpec = {
  name: 'head package-lock.json; requirements.txt with hashes; go.sum',
  make(r) {
    const lines = ['{', '  "name": "site",', '  "version": "1.0.0",', '  "lockfileVersion": 3,', '  "requires": true,', '  "packages": {'];
    for (const [n, v] of [['express', '4.21.1'], ['accepts', '1.3.8'], ['body-parser', '1.20.3'], ['cookie', '0.7.1'], ['debug', '2.6.9']]) {
      lines.push(`    "node_modules/${n}": {`, `      "version": "${v}",`, `      "resolved": "https://registry.npmjs.org/${n}/-/${n}-${v}.tgz",`, `      "integrity": "sha512-${r.b64(64)}",`, '      "license": "MIT"', '    },');
    }
    lines.push('  }', '}', '--- requirements.txt', `requests==2.32.3 \\`, `    --hash=sha256:${r.hex(64)} \\`, `    --hash=sha256:${r.hex(64)}`, `urllib3==2.2.3 \\`, `    --hash=sha256:${r.hex(64)}`,
      '--- go.sum', `golang.org/x/crypto v0.31.0 h1:${r.b64(32)}`, `golang.org/x/crypto v0.31.0/go.mod h1:${r.b64(32)}`, `golang.org/x/sys v0.28.0 h1:${r.b64(32)}`,
      `github.com/google/uuid v1.6.0 h1:${r.b64(32)}`, `github.com/google/uuid v1.6.0/go.mod h1:${r.b64(32)}`);
    return text(lines);
  },
};

const publicKeys: OrdinarySpec = {
  name: 'cat ~/.ssh/authorized_keys known_hosts; ssh-keygen -lf',
  make(r) {
    const lines: string[] = [];
    for (let i = 0; i < 5; i++) lines.push(sshPublicLine(r, `${user(r)}@${host(r)}`));
    lines.push(`ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ${r.b64(380).replace(/=+$/, '')} ${user(r)}@laptop`);
    lines.push(`from="10.0.0.0/8",no-agent-forwarding ${sshPublicLine(r, 'backup@backup-01')}`, '--- known_hosts');
    for (let i = 0; i < 6; i++) lines.push(`|1|${r.b64(20)}|${r.b64(20)} ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB${r.b64(64).replace(/=+$/, '')}`);
    lines.push(`github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl`, '--- ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub');
    lines.push(`256 SHA256:${r.b64(32).replace(/=+$/, '')} root@${host(r)} (ED25519)`, `3072 SHA256:${r.b64(32).replace(/=+$/, '')} root@${host(r)} (RSA)`, `256 MD5:${Array.from({ length: 16 }, () => r.hex(2)).join(':')} root@${host(r)} (ECDSA)`);
    return text(lines);
  },
};

const certificates: OrdinarySpec = {
  name: 'cat fullchain.pem; openssl x509 -noout -text (excerpt)',
  make(r) {
    const d = domain(r);
    const mod = Array.from({ length: 8 }, () => '                    ' + Array.from({ length: 15 }, () => r.hex(2)).join(':') + ':');
    return text([pemBlock('cert', pemBody(r, 'cert')), pemBlock('cert', pemBody(r, 'cert')), 'Certificate:', '    Data:', '        Version: 3 (0x2)',
      `        Serial Number:`, `            ${Array.from({ length: 18 }, () => r.hex(2)).join(':')}`, '        Signature Algorithm: sha256WithRSAEncryption', '        Issuer: C = US, O = Let\'s Encrypt, CN = R11',
      '        Validity', '            Not Before: Nov  2 10:11:12 2026 GMT', '            Not After : Jan 31 10:11:11 2027 GMT', `        Subject: CN = ${d}`, '        Subject Public Key Info:',
      '            Public Key Algorithm: rsaEncryption', '                Public-Key: (2048 bit)', '                Modulus:', ...mod, '                Exponent: 65537 (0x10001)',
      '        X509v3 extensions:', '            X509v3 Subject Key Identifier: ', `                ${Array.from({ length: 20 }, () => r.hex(2).toUpperCase()).join(':')}`,
      `            X509v3 Subject Alternative Name: `, `                DNS:${d}, DNS:www.${d}`, `SHA256 Fingerprint=${Array.from({ length: 32 }, () => r.hex(2).toUpperCase()).join(':')}`]);
  },
};

const gpgKeys: OrdinarySpec = {
  name: 'gpg --list-keys; apt-key list; ls /etc/apt/keyrings',
  make(r) {
    const lines = ['/root/.gnupg/pubring.kbx', '------------------------'];
    for (const [who, mail] of [['Debian Archive Automatic Signing Key (12/bookworm)', 'ftpmaster@debian.org'], ['Docker Release (CE deb)', 'docker@docker.com'],
      ['PostgreSQL Debian Repository', 'pgsql-pkg-debian@lists.postgresql.org'], ['HashiCorp Security (HashiCorp Package Signing)', 'security+packaging@hashicorp.com'], ['Grafana Labs', 'engineering@grafana.com']]) {
      lines.push(`pub   rsa4096 20${r.int(10, 24)}-0${r.int(1, 9)}-1${r.int(0, 9)} [SC] [expires: 20${r.int(27, 33)}-0${r.int(1, 9)}-1${r.int(0, 9)}]`, `      ${r.hex(40).toUpperCase()}`,
        `uid           [ unknown] ${who} <${mail}>`, `sub   rsa4096 20${r.int(10, 24)}-0${r.int(1, 9)}-1${r.int(0, 9)} [S]`, '');
    }
    lines.push('$ cat /etc/apt/sources.list.d/docker.sources', 'Types: deb', 'URIs: https://download.docker.com/linux/debian', 'Suites: bookworm', 'Components: stable',
      'Signed-By: /etc/apt/keyrings/docker.asc', `# key fingerprint ${r.hex(40).toUpperCase()}`, `# installed by ${user(r)} on ${fqdn(r)}`);
    return text(lines);
  },
};

export const ordinaryDevSpecs: OrdinarySpec[] = [gitLog, gitDiff, terraform, dockerInspect, kubectlDescribe, imageDigests, lockfiles, publicKeys, certificates, gpgKeys];
