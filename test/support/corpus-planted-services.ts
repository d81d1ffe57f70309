/** Planted files, part 2: tokens of forges, registries, chat, mail, payment and LLM services in the files that hold them. */
import * as T from './corpus-tokens.js';
import { plantedFile } from './corpus-planted-keys.js';
import type { Rng } from './corpus-random.js';
import type { CorpusFile } from './secret-corpus.js';

export function serviceFiles(rng: Rng): CorpusFile[] {
  return [
    plantedFile('home/alice/.git-credentials', (s) =>
      `https://alice:${s('github_token', T.githubToken(rng, 'ghp'))}@github.com\n` +
      `https://oauth2:${s('gitlab_token', T.gitlabToken(rng))}@gitlab.example.com\n` +
      `https://x-access-token:${s('github_token', T.githubToken(rng, 'ghs'))}@github.com\n`),
    plantedFile('home/alice/.config/gh/hosts.yml', (s) =>
      `github.com:\n    users:\n        alice:\n            oauth_token: ${s('github_token', T.githubToken(rng, 'gho'))}\n    git_protocol: ssh\n    oauth_token: ${s('github_token', T.githubToken(rng, 'gho'))}\n    user: alice\n`),
    plantedFile('home/runner/actions-runner/.runner-env', (s) =>
      `GITHUB_TOKEN=${s('github_token', T.githubToken(rng, 'ghs'))}\nGH_USER_TOKEN=${s('github_token', T.githubToken(rng, 'ghu'))}\n` +
      `GH_REFRESH=${s('github_token', T.githubToken(rng, 'ghr'))}\nRUNNER_NAME=build-07\nRUNNER_WORKDIR=/home/runner/_work\n` +
      `RELEASE_PAT=${s('github_fine_grained', T.githubFineGrained(rng))}\n`),
    plantedFile('etc/gitlab-runner/config.toml', (s) =>
      `concurrent = 4\ncheck_interval = 0\n\n[[runners]]\n  name = "build-07"\n  url = "https://gitlab.example.com/"\n  id = 412\n` +
      `  token = "${s('gitlab_runner_token', T.gitlabRunnerToken(rng))}"\n  token_obtained_at = 2026-03-02T10:11:12Z\n  token_expires_at = 0001-01-01T00:00:00Z\n  executor = "docker"\n` +
      `  [runners.cache]\n    Type = "s3"\n    [runners.cache.s3]\n      ServerAddress = "minio.internal:9000"\n      AccessKey = "${s('s3_access_key', T.alnumPassword(rng, 20))}"\n` +
      `      SecretKey = "${s('s3_secret_key', T.awsSecret(rng))}"\n      BucketName = "runner-cache"\n  [runners.docker]\n    image = "debian:bookworm"\n    privileged = false\n`),
    plantedFile('home/alice/.npmrc', (s) =>
      `registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${s('npm_token', T.npmToken(rng))}\n` +
      `@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=${s('github_token', T.githubToken(rng, 'ghp'))}\n` +
      `//nexus.internal/repository/npm/:_auth=${s('npmrc_auth', Buffer.from(`ci:${T.password(rng, 14)}`).toString('base64'))}\nalways-auth=true\n`),
    plantedFile('home/alice/.pypirc', (s) =>
      `[distutils]\nindex-servers =\n    pypi\n    internal\n\n[pypi]\nusername = __token__\npassword = ${s('pypi_token', T.pypiToken(rng))}\n\n` +
      `[internal]\nrepository = https://pypi.internal/simple/\nusername = ci\npassword = ${s('password', T.password(rng, 20))}\n`),
    plantedFile('home/alice/.docker/config.json', (s) =>
      JSON.stringify({
        auths: {
          'https://index.docker.io/v1/': { auth: s('docker_auth', Buffer.from(`alice:${T.dockerHubPat(rng)}`).toString('base64')) },
          'ghcr.io': { auth: s('docker_auth', Buffer.from(`alice:${T.githubToken(rng, 'ghp')}`).toString('base64')) },
          'acme.azurecr.io': { auth: 'MDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAwOg==', identitytoken: s('docker_identitytoken', T.jwt(rng, 'RS256', { aud: 'acme.azurecr.io' })) },
        },
        credsStore: 'desktop',
      }, null, '\t') + '\n'),
    plantedFile('run/user/1000/containers/auth.json', (s) =>
      JSON.stringify({ auths: { 'quay.io': { auth: s('docker_auth', Buffer.from(`acme+robot:${T.alnumPassword(rng, 64).toUpperCase()}`).toString('base64')) },
        'docker.io': { auth: s('docker_auth', Buffer.from(`acmebot:${T.dockerHubPat(rng)}`).toString('base64')) } } }, null, 2) + '\n'),
    plantedFile('srv/ci/.docker-login.env', (s) => `DOCKERHUB_USERNAME=acmebot\nDOCKERHUB_TOKEN=${s('dockerhub_pat', T.dockerHubPat(rng))}\n`),
    plantedFile('etc/alertmanager/alertmanager.yml', (s) =>
      `global:\n  resolve_timeout: 5m\n  slack_api_url: 'https://hooks.slack.com/services/${s('slack_webhook', T.slackWebhookPath(rng))}'\n  smtp_smarthost: 'smtp.sendgrid.net:587'\n` +
      `  smtp_auth_username: apikey\n  smtp_auth_password: '${s('sendgrid_key', T.sendgrid(rng))}'\nroute:\n  receiver: ops\nreceivers:\n  - name: ops\n    slack_configs:\n      - channel: '#ops'\n` +
      `        api_url: https://hooks.slack.com/services/${s('slack_webhook', T.slackWebhookPath(rng))}\n    telegram_configs:\n      - bot_token: ${s('telegram_bot_token', T.telegramBot(rng))}\n        chat_id: -100${rng.str('0123456789', 10)}\n` +
      `    webhook_configs:\n      - url: https://discord.com/api/webhooks/${rng.str('0123456789', 19)}/${s('discord_webhook', T.discordWebhookToken(rng))}\n`),
    plantedFile('opt/chatops/bot.yaml', (s) =>
      `slack:\n  bot_token: ${s('slack_bot_token', T.slackBot(rng))}\n  app_token: "${s('slack_app_token', T.slackApp(rng))}"\n  user_token: ${s('slack_user_token', T.slackUser(rng))}\n  signing_secret: ${s('slack_signing_secret', rng.hex(32))}\n` +
      `discord:\n  token: ${s('discord_bot_token', T.discordBot(rng))}\n  guild: "${rng.str('0123456789', 18)}"\ntelegram:\n  token: "${s('telegram_bot_token', T.telegramBot(rng))}"\n`),
    plantedFile('etc/systemd/system/discord-relay.service.d/override.conf', (s) =>
      `[Service]\nEnvironment=DISCORD_TOKEN=${s('discord_bot_token', T.discordBot(rng))}\nEnvironment="TELEGRAM_BOT_TOKEN=${s('telegram_bot_token', T.telegramBot(rng))}" "LOG_LEVEL=info"\n`),
    plantedFile('srv/shop/config/mail.yml', (s) =>
      `production:\n  delivery_method: mailgun\n  mailgun:\n    api_key: ${s('mailgun_key', T.mailgunKey(rng))}\n    domain: mg.example.com\n  mailgun_eu:\n    api_key: "${s('mailgun_key', T.mailgunNew(rng))}"\n` +
      `  mailchimp:\n    api_key: ${s('mailchimp_key', T.mailchimp(rng))}\n    list_id: ${rng.hex(10)}\n  sendgrid:\n    api_key: '${s('sendgrid_key', T.sendgrid(rng))}'\n`),
    plantedFile('srv/shop/.env.production', (s) =>
      `APP_ENV=production\nAPP_DEBUG=false\nSTRIPE_PUBLISHABLE_KEY=pk_live_${T.alnumPassword(rng, 99)}\n` +
      `STRIPE_SECRET_KEY=${s('stripe_secret', T.stripe(rng, 'sk_live'))}\nSTRIPE_RESTRICTED_KEY="${s('stripe_restricted', T.stripeShort(rng, 'rk_live'))}"\n` +
      `STRIPE_WEBHOOK_SECRET=${s('stripe_webhook_secret', 'whsec_' + T.alnumPassword(rng, 32))}\nSQUARE_ACCESS_TOKEN=${s('square_access_token', T.squareAccess(rng))}\n` +
      `SQUARE_APPLICATION_ID=sq0idp-${rng.str('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', 22)}\nSQUARE_OAUTH_TOKEN='${s('square_oauth_token', T.squareOauth(rng))}'\n` +
      `SQUARE_APPLICATION_SECRET=${s('square_secret', T.squareSecret(rng))}\nMAIL_MAILER=smtp\nMAIL_PASSWORD=${s('password', T.humanPassword(rng))}\n`),
    plantedFile('home/alice/.config/llm/keys.json', (s) =>
      JSON.stringify({
        openai: s('openai_key', T.openaiProject(rng)), 'openai-legacy': s('openai_key', T.openaiLegacy(rng)), 'openai-svc': s('openai_key', T.openaiService(rng)),
        anthropic: s('anthropic_key', T.anthropic(rng)), gemini: s('google_api_key', T.googleApiKey(rng)), groq: s('groq_key', T.groq(rng)),
        xai: s('xai_key', T.xai(rng)), huggingface: s('huggingface_token', T.huggingface(rng)),
      }, null, 2) + '\n'),
    plantedFile('srv/agent/.env', (s) =>
      `# model providers\nOPENAI_API_KEY=${s('openai_key', T.openaiProject(rng))}\nANTHROPIC_API_KEY="${s('anthropic_key', T.anthropic(rng))}"\nANTHROPIC_ADMIN_KEY=${s('anthropic_key', T.anthropicAdmin(rng))}\n` +
      `GOOGLE_API_KEY=${s('google_api_key', T.googleApiKey(rng))}\nGROQ_API_KEY='${s('groq_key', T.groq(rng))}'\nXAI_API_KEY=${s('xai_key', T.xai(rng))}\n` +
      `HF_TOKEN=${s('huggingface_token', T.huggingface(rng))}\nMODEL=claude-sonnet-4\nMAX_TOKENS=4096\nTEMPERATURE=0.2\n`),
    plantedFile('home/alice/.cache/huggingface/token', (s) => s('huggingface_token', T.huggingface(rng))),
    plantedFile('etc/maps/frontend.js', (s) =>
      `window.APP_CONFIG = {\n  mapsKey: "${s('google_api_key', T.googleApiKey(rng))}",\n  sentryDsn: "https://${rng.hex(32)}@o${rng.str('0123456789', 6)}.ingest.sentry.io/${rng.str('0123456789', 7)}",\n  release: "${rng.hex(40)}"\n};\n`),
    plantedFile('home/alice/.bash_history', (s) =>
      `ls -la\ncd /srv/app\nexport GITHUB_TOKEN=${s('github_token', T.githubToken(rng, 'ghp'))}\ngit pull\n` +
      `curl -H "Authorization: Bearer ${s('bearer_token', T.openaiProject(rng))}" https://api.openai.com/v1/models\n` +
      `mysql -u root -p'${s('password', T.symbolPassword(rng, 16))}' -e 'show databases'\n` +
      `git clone https://deploy:${s('gitlab_token', T.gitlabToken(rng))}@gitlab.example.com/acme/infra.git\n` +
      `docker login -u acmebot -p ${s('dockerhub_pat', T.dockerHubPat(rng))}\nsudo systemctl restart app\n` +
      `psql "postgresql://app:${s('url_password', T.alnumPassword(rng, 20))}@db.internal:5432/app?sslmode=require"\nhistory | tail\n`),
    plantedFile('etc/vault-agent/token.env', (s) => `VAULT_ADDR=https://vault.internal:8200\nVAULT_TOKEN=${s('vault_token', T.vaultToken(rng))}\n`),
  ];
}
