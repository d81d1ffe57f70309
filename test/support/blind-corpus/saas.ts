/** SaaS API credentials: Slack, Stripe, Twilio, SendGrid, JWTs, Telegram bots. */
import { B64URL, UPPER36 } from './rng.js';
import type { KindSpec } from './types.js';
import { domain, host, iso, jtime, pid, text, user } from './context.js';
import { jwt } from './jwt.js';

const slackBot: KindSpec = {
  kinds: ['slack-bot-token'],
  make(r) {
    const v = `xoxb-${r.digits(r.int(10, 13))}-${r.digits(13)}-${r.alnum(24)}`;
    if (r.chance(0.5)) {
      return { name: 'cat /etc/alertbot/config.yaml', secrets: [{ kind: 'slack-bot-token', value: v }],
        text: text(['slack:', `  bot_token: ${v}`, '  channel: "#ops-alerts"', '  username: alertbot', 'rules:', '  - match: severity=critical', '    mention: "@oncall"']) };
    }
    return { name: 'docker inspect errbot --format "{{range .Config.Env}}{{println .}}{{end}}"', secrets: [{ kind: 'slack-bot-token', value: v }],
      text: text(['PATH=/usr/local/bin:/usr/bin:/bin', 'BACKEND=Slack', `BOT_TOKEN=${v}`, 'BOT_ADMINS=@ops', 'LANG=C.UTF-8', 'PYTHON_VERSION=3.12.4']) };
  },
};

const slackHook: KindSpec = {
  kinds: ['slack-webhook-secret'],
  make(r) {
    const v = r.alnum(24);
    const url = `https://hooks.slack.com/services/T${r.chars(UPPER36, 10)}/B${r.chars(UPPER36, 10)}/${v}`;
    return { name: 'cat /etc/alertmanager/alertmanager.yml', secrets: [{ kind: 'slack-webhook-secret', value: v }],
      text: text(['global:', '  resolve_timeout: 5m', 'route:', '  receiver: ops-slack', '  group_by: [alertname, cluster]', '  group_wait: 30s', 'receivers:', '  - name: ops-slack',
        '    slack_configs:', `      - api_url: ${url}`, "        channel: '#alerts'", '        send_resolved: true']) };
  },
};

const stripe: KindSpec = {
  kinds: ['stripe-secret-key'],
  make(r) {
    const v = r.chance(0.5) ? `sk_live_${r.alnum(24)}` : `sk_live_51${r.alnum(97)}`;
    return { name: 'cat /srv/shop/.env', secrets: [{ kind: 'stripe-secret-key', value: v }],
      text: text(['NODE_ENV=production', `STRIPE_PUBLISHABLE_KEY=pk_live_${r.alnum(24)}`, `STRIPE_SECRET_KEY=${v}`, 'STRIPE_API_VERSION=2024-06-20', 'CURRENCY=eur']) };
  },
};

const twilio: KindSpec = {
  kinds: ['twilio-auth-token'],
  make(r) {
    const v = r.hex(32);
    // The account SID has the same alphabet and length but is an identifier.
    return { name: 'cat /etc/sms-gateway.env', secrets: [{ kind: 'twilio-auth-token', value: v }],
      text: text([`TWILIO_ACCOUNT_SID=AC${r.hex(32)}`, `TWILIO_AUTH_TOKEN=${v}`, `TWILIO_FROM=+4915${r.digits(9)}`, 'SMS_RATE_LIMIT=30/min']) };
  },
};

const sendgrid: KindSpec = {
  kinds: ['sendgrid-api-key'],
  make(r) {
    const v = `SG.${r.chars(B64URL, 22)}.${r.chars(B64URL, 43)}`;
    return { name: 'cat /etc/postfix/sasl_passwd.sendgrid; postconf relayhost', secrets: [{ kind: 'sendgrid-api-key', value: v }],
      text: text([`[smtp.sendgrid.net]:587 apikey:${v}`, 'relayhost = [smtp.sendgrid.net]:587']) };
  },
};

const jwtKind: KindSpec = {
  kinds: ['jwt'],
  make(r) {
    const now = r.int(1_750_000_000, 1_790_000_000);
    const v = jwt(r, { alg: r.pick(['HS256', 'RS256', 'ES256']) }, { sub: r.uuid(), name: user(r), iss: `https://auth.${domain(r)}`, iat: now, exp: now + 3600, scope: 'read write' }, r.pick([32, 256, 64]));
    if (r.chance(0.5)) {
      return { name: 'journalctl -u api -n 4', secrets: [{ kind: 'jwt', value: v }],
        text: text([`${jtime(r)} ${host(r)} api[${pid(r)}]: {"level":"debug","ts":"${iso(r)}","msg":"request","method":"GET","path":"/v1/orders","headers":{"authorization":"Bearer ${v}"}}`,
          `${jtime(r)} ${host(r)} api[${pid(r)}]: {"level":"info","ts":"${iso(r)}","msg":"response","status":200,"ms":14}`]) };
    }
    return { name: 'cat /etc/ci/deploy.env', secrets: [{ kind: 'jwt', value: v }], text: text(['DEPLOY_TARGET=prod', `DEPLOY_API_TOKEN=${v}`, 'DEPLOY_TIMEOUT=600']) };
  },
};

const telegram: KindSpec = {
  kinds: ['telegram-bot-token'],
  make(r) {
    const v = `${r.digits(r.int(9, 10))}:AA${r.chars(B64URL, 33)}`;
    return { name: 'grep -A3 telegram_configs /etc/alertmanager/alertmanager.yml', secrets: [{ kind: 'telegram-bot-token', value: v }],
      text: text(['    telegram_configs:', `      - bot_token: '${v}'`, `        chat_id: -100${r.digits(10)}`, '        parse_mode: HTML']) };
  },
};

export const saasSpecs: KindSpec[] = [slackBot, slackHook, stripe, twilio, sendgrid, jwtKind, telegram];
