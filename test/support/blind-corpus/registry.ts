/** Registry and forge credentials: docker auths, GitLab, GitHub, npm, PyPI tokens. */
import { ALNUM, B64URL, type Rng } from './rng.js';
import type { KindSpec } from './types.js';
import { domain, fqdn, iso, text, user } from './context.js';

const dockerAuth: KindSpec = {
  kinds: ['docker-config-auth'],
  make(r) {
    const reg = r.pick(['registry.gitlab.com', 'ghcr.io', `registry.${domain(r)}`, 'https://index.docker.io/v1/', `harbor.${domain(r)}`]);
    const v = Buffer.from(`${user(r)}:${r.password()}`).toString('base64');
    const json = { auths: { [reg]: { auth: v } }, credHelpers: { 'asia.gcr.io': 'gcloud' }, currentContext: 'default' };
    const shape = r.int(0, 2);
    if (shape === 0) return { name: 'cat ~/.docker/config.json', secrets: [{ kind: 'docker-config-auth', value: v }], text: JSON.stringify(json, null, '\t') + '\n' };
    if (shape === 1) return { name: 'cat /run/user/1000/containers/auth.json', secrets: [{ kind: 'docker-config-auth', value: v }], text: JSON.stringify({ auths: { [reg]: { auth: v } } }, null, '\t') + '\n' };
    return { name: "kubectl get secret regcred -o jsonpath='{.data.\\.dockerconfigjson}' | base64 -d", secrets: [{ kind: 'docker-config-auth', value: v }],
      text: JSON.stringify({ auths: { [reg]: { username: 'robot$ci', auth: v } } }) + '\n' };
  },
};

const gitCredentials = (who: string, token: string, forge: string): string => text([`https://${who}:${token}@${forge}`]);

const gitlab: KindSpec = {
  kinds: ['gitlab-pat'],
  make(r) {
    const v = `glpat-${r.chars(ALNUM + '-_', 20)}`;
    const forge = r.pick(['gitlab.com', `gitlab.${domain(r)}`]);
    const shape = r.int(0, 2);
    if (shape === 0) return { name: 'cat ~/.git-credentials', secrets: [{ kind: 'gitlab-pat', value: v }], text: `https://oauth2:${v}@${forge}\n` };
    if (shape === 1) {
      return { name: 'git remote -v', secrets: [{ kind: 'gitlab-pat', value: v }],
        text: text([`origin\thttps://gitlab-ci-token:${v}@${forge}/infra/ansible.git (fetch)`, `origin\thttps://gitlab-ci-token:${v}@${forge}/infra/ansible.git (push)`, `upstream\tgit@${forge}:platform/ansible.git (fetch)`, `upstream\tgit@${forge}:platform/ansible.git (push)`]) };
    }
    return { name: 'cat ~/.config/glab-cli/config.yml', secrets: [{ kind: 'gitlab-pat', value: v }],
      text: text(['git_protocol: ssh', 'editor: vim', 'check_update: false', 'hosts:', `    ${forge}:`, `        token: ${v}`, `        api_host: ${forge}`, '        git_protocol: ssh', '        api_protocol: https', `        user: ${user(r)}`]) };
  },
};

const runner: KindSpec = {
  kinds: ['gitlab-runner-token'],
  make(r) {
    const v = `glrt-${r.chars(ALNUM + '-_', 20)}`;
    return { name: 'cat /etc/gitlab-runner/config.toml', secrets: [{ kind: 'gitlab-runner-token', value: v }],
      text: text(['concurrent = 4', 'check_interval = 0', 'shutdown_timeout = 0', '', '[session_server]', '  session_timeout = 1800', '', '[[runners]]',
        `  name = "${fqdn(r)}"`, `  url = "https://gitlab.${domain(r)}"`, `  id = ${r.int(10, 900)}`, `  token = "${v}"`, `  token_obtained_at = ${iso(r)}`,
        '  token_expires_at = 0001-01-01T00:00:00Z', '  executor = "docker"', '  [runners.docker]', '    tls_verify = false', '    image = "debian:bookworm"',
        '    privileged = false', '    volumes = ["/cache"]', '    shm_size = 0']) };
  },
};

const ghToken = (r: Rng, prefix: string): string => `${prefix}${r.alnum(36)}`;

const ghClassic: KindSpec = {
  kinds: ['github-classic-pat'],
  make(r) {
    const v = ghToken(r, 'ghp_');
    const shape = r.int(0, 2);
    if (shape === 0) return { name: 'cat ~/.git-credentials', secrets: [{ kind: 'github-classic-pat', value: v }], text: gitCredentials(user(r), v, 'github.com') };
    if (shape === 1) {
      return { name: 'cat /etc/default/actions-exporter', secrets: [{ kind: 'github-classic-pat', value: v }],
        text: text(['# GitHub Actions exporter', 'GITHUB_ORGS=example-org', `GITHUB_TOKEN=${v}`, 'LISTEN_ADDR=:9999', 'REFRESH_INTERVAL=60s']) };
    }
    return { name: 'cat .github-mirror.yml', secrets: [{ kind: 'github-classic-pat', value: v }],
      text: text(['mirrors:', '  - source: https://gitlab.example.internal/ops/tools.git', '    target: github.com/example-org/tools', 'auth:', `  github_token: "${v}"`, 'schedule: "@hourly"']) };
  },
};

const ghOauth: KindSpec = {
  kinds: ['github-oauth-token'],
  make(r) {
    const v = ghToken(r, 'gho_');
    const who = user(r);
    return { name: 'cat ~/.config/gh/hosts.yml', secrets: [{ kind: 'github-oauth-token', value: v }],
      text: text(['github.com:', '    users:', `        ${who}:`, `            oauth_token: ${v}`, '    git_protocol: https', `    user: ${who}`, `    oauth_token: ${v}`]) };
  },
};

const ghFine: KindSpec = {
  kinds: ['github-fine-grained-pat'],
  make(r) {
    const v = `github_pat_${r.alnum(22)}_${r.alnum(59)}`;
    if (r.chance(0.5)) {
      return { name: 'env | sort', secrets: [{ kind: 'github-fine-grained-pat', value: v }],
        text: text(['HOME=/home/runner', 'LANG=C.UTF-8', 'LOGNAME=runner', 'PATH=/usr/local/bin:/usr/bin:/bin', 'PWD=/srv/renovate', 'RENOVATE_PLATFORM=github',
          `RENOVATE_TOKEN=${v}`, 'SHELL=/bin/bash', 'SHLVL=1', 'USER=runner']) };
    }
    return { name: 'cat /etc/renovate/config.js', secrets: [{ kind: 'github-fine-grained-pat', value: v }],
      text: text(['module.exports = {', "  platform: 'github',", `  token: '${v}',`, "  repositories: ['example-org/infra', 'example-org/site'],", "  onboarding: false,", '};']) };
  },
};

const npm: KindSpec = {
  kinds: ['npm-token'],
  make(r) {
    const v = ghToken(r, 'npm_');
    return { name: r.pick(['cat ~/.npmrc', 'cat /srv/app/.npmrc']), secrets: [{ kind: 'npm-token', value: v }],
      text: text(['registry=https://registry.npmjs.org/', `//registry.npmjs.org/:_authToken=${v}`, `@example:registry=https://npm.pkg.${domain(r)}/`, 'fund=false', 'audit-level=high']) };
  },
};

const pypi: KindSpec = {
  kinds: ['pypi-token'],
  make(r) {
    const v = `pypi-AgEIcHlwaS5vcmc${r.chars(B64URL, r.int(140, 170))}`;
    if (r.chance(0.5)) {
      return { name: 'cat ~/.pypirc', secrets: [{ kind: 'pypi-token', value: v }],
        text: text(['[distutils]', 'index-servers =', '    pypi', '    internal', '', '[pypi]', 'username = __token__', `password = ${v}`, '',
          '[internal]', `repository = https://pypi.${domain(r)}/simple/`, `username = ${user(r)}`]) };
    }
    return { name: 'twine upload (env)', secrets: [{ kind: 'pypi-token', value: v }],
      text: text(['TWINE_USERNAME=__token__', `TWINE_PASSWORD=${v}`, 'TWINE_NON_INTERACTIVE=1', 'Uploading distributions to https://upload.pypi.org/legacy/',
        'Uploading example_tool-1.4.2-py3-none-any.whl', '100% ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 24.1/24.1 kB • 00:00 • ?']) };
  },
};

export const registrySpecs: KindSpec[] = [dockerAuth, gitlab, runner, ghClassic, ghOauth, ghFine, npm, pypi];
