/** Kubernetes secrets: Secret data and stringData, kubeconfig client keys and tokens. */
import type { Rng } from './rng.js';
import type { KindSpec, Secret } from './types.js';
import { fqdn, iso, ip, text, user } from './context.js';
import { pemBlock, pemBody } from './pem.js';
import { jwt } from './jwt.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const data: KindSpec = {
  kinds: ['k8s-secret-data'],
  make(r) {
    const name = r.pick(['db-credentials', 'app-secrets', 'smtp-auth', 'grafana-admin']);
    const ns = r.pick(['default', 'prod', 'monitoring', 'payments']);
    const values: Record<string, string> = { password: r.password(), username: `${user(r)}_${r.alnum(4).toLowerCase()}` };
    if (r.chance(0.5)) values['api-key'] = r.alnum(32);
    const enc = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, b64(v)]));
    const secrets: Secret[] = Object.values(enc).map((value) => ({ kind: 'k8s-secret-data', value }));
    const lines = ['apiVersion: v1', 'data:', ...Object.entries(enc).map(([k, v]) => `  ${k}: ${v}`), 'kind: Secret', 'metadata:'];
    if (r.chance(0.5)) {
      lines.push('  annotations:', '    kubectl.kubernetes.io/last-applied-configuration: |',
        `      ${JSON.stringify({ apiVersion: 'v1', data: enc, kind: 'Secret', metadata: { annotations: {}, name, namespace: ns }, type: 'Opaque' })}`);
    }
    lines.push(`  creationTimestamp: "${iso(r)}"`, `  name: ${name}`, `  namespace: ${ns}`, `  resourceVersion: "${r.int(1000, 9999999)}"`, `  uid: ${r.uuid()}`, 'type: Opaque');
    return { name: `kubectl get secret ${name} -n ${ns} -o yaml`, secrets, text: text(lines) };
  },
};

const stringData: KindSpec = {
  kinds: ['k8s-secret-stringdata'],
  make(r) {
    const pw = r.password();
    const tok = r.alnum(40);
    return { name: 'cat manifests/secret.yaml', secrets: [{ kind: 'k8s-secret-stringdata', value: pw }, { kind: 'k8s-secret-stringdata', value: tok }],
      text: text(['---', 'apiVersion: v1', 'kind: Secret', 'metadata:', `  name: ${r.pick(['backend-env', 'worker-secrets', 'oauth-proxy'])}`, '  labels:', '    app.kubernetes.io/part-of: shop',
        'type: Opaque', 'stringData:', `  DATABASE_PASSWORD: "${pw}"`, `  SESSION_SECRET: ${tok}`, '  DATABASE_HOST: postgres.prod.svc.cluster.local', '  LOG_LEVEL: info']) };
  },
};

const clientKey: KindSpec = {
  kinds: ['kubeconfig-client-key-data'],
  make(r) {
    const v = b64(pemBlock('rsa', pemBody(r, 'rsa')) + '\n');
    const caData = b64(pemBlock('cert', pemBody(r, 'cert')) + '\n');
    const certData = b64(pemBlock('cert', pemBody(r, 'cert')) + '\n');
    const cluster = r.pick(['kubernetes', 'prod-fra1', 'k3s-default']);
    return { name: 'kubectl config view --raw', secrets: [{ kind: 'kubeconfig-client-key-data', value: v }],
      text: text(['apiVersion: v1', 'clusters:', '- cluster:', `    certificate-authority-data: ${caData}`, `    server: https://${ip(r)}:6443`, `  name: ${cluster}`,
        'contexts:', '- context:', `    cluster: ${cluster}`, '    user: kubernetes-admin', `  name: kubernetes-admin@${cluster}`, `current-context: kubernetes-admin@${cluster}`,
        'kind: Config', 'preferences: {}', 'users:', '- name: kubernetes-admin', '  user:', `    client-certificate-data: ${certData}`, `    client-key-data: ${v}`]) };
  },
};

const token: KindSpec = {
  kinds: ['kubeconfig-token'],
  make(r) {
    const v = saToken(r);
    if (r.chance(0.5)) {
      return { name: 'cat ~/.kube/ci-config', secrets: [{ kind: 'kubeconfig-token', value: v }],
        text: text(['apiVersion: v1', 'kind: Config', 'clusters:', '- name: prod', '  cluster:', `    server: https://${fqdn(r)}:6443`, '    insecure-skip-tls-verify: false',
          'users:', '- name: ci-deployer', '  user:', `    token: ${v}`, 'contexts:', '- name: ci@prod', '  context:', '    cluster: prod', '    user: ci-deployer', '    namespace: apps', 'current-context: ci@prod']) };
    }
    return { name: 'kubectl -n apps create token ci-deployer --duration=24h', secrets: [{ kind: 'kubeconfig-token', value: v }], text: `${v}\n` };
  },
};

function saToken(r: Rng): string {
  const now = r.int(1_750_000_000, 1_790_000_000);
  return jwt(r, { alg: 'RS256', kid: r.b64url(32) }, { aud: ['https://kubernetes.default.svc.cluster.local'], exp: now + 86400, iat: now,
    iss: 'https://kubernetes.default.svc.cluster.local', 'kubernetes.io': { namespace: 'apps', serviceaccount: { name: 'ci-deployer', uid: r.uuid() } },
    nbf: now, sub: 'system:serviceaccount:apps:ci-deployer' }, 256);
}

export const k8sSpecs: KindSpec[] = [data, stringData, clientKey, token];
