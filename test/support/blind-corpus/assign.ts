/** Generic password/secret assignments in INI, YAML, JSON, XML, .env and TOML files. */
import type { KindSpec } from './types.js';
import { domain, fqdn, ip, text, user } from './context.js';

const iniKind: KindSpec = {
  kinds: ['password-ini'],
  make(r) {
    const v = r.password();
    const shape = r.int(0, 2);
    if (shape === 0) {
      return { name: 'grep -v "^#" /etc/zabbix/zabbix_server.conf | grep -v "^$"', secrets: [{ kind: 'password-ini', value: v }],
        text: text(['LogFile=/var/log/zabbix/zabbix_server.log', 'LogFileSize=0', 'PidFile=/run/zabbix/zabbix_server.pid', 'SocketDir=/run/zabbix', `DBHost=${ip(r)}`,
          'DBName=zabbix', 'DBUser=zabbix', `DBPassword=${v}`, 'SNMPTrapperFile=/var/log/snmptrap/snmptrap.log', 'Timeout=4', 'FpingLocation=/usr/bin/fping', 'LogSlowQueries=3000', 'StatsAllowedIP=127.0.0.1']) };
    }
    if (shape === 1) {
      return { name: 'cat /etc/grafana/grafana.ini (non-comment lines)', secrets: [{ kind: 'password-ini', value: v }],
        text: text(['[server]', 'protocol = http', 'http_port = 3000', `domain = grafana.${domain(r)}`, '', '[database]', 'type = postgres', `host = ${ip(r)}:5432`, 'name = grafana', 'user = grafana', '',
          '[security]', 'admin_user = admin', `admin_password = ${v}`, 'disable_gravatar = true', 'cookie_secure = true', '', '[users]', 'allow_sign_up = false']) };
    }
    return { name: 'cat /etc/gitea/app.ini', secrets: [{ kind: 'password-ini', value: v }],
      text: text(['APP_NAME = Gitea: Git with a cup of tea', 'RUN_USER = git', 'RUN_MODE = prod', '', '[database]', 'DB_TYPE  = mysql', 'HOST     = 127.0.0.1:3306', 'NAME     = gitea',
        'USER     = gitea', `PASSWD   = ${v}`, 'SSL_MODE = disable', '', '[server]', `DOMAIN           = git.${domain(r)}`, 'HTTP_PORT        = 3000', 'DISABLE_SSH      = false', 'LFS_START_SERVER = true']) };
  },
};

const yamlKind: KindSpec = {
  kinds: ['password-yaml'],
  make(r) {
    const v = r.password();
    const shape = r.int(0, 2);
    if (shape === 0) {
      return { name: 'cat /srv/app/config/application-prod.yml', secrets: [{ kind: 'password-yaml', value: v }],
        text: text(['server:', '  port: 8080', 'spring:', '  datasource:', `    url: jdbc:postgresql://${ip(r)}:5432/orders`, '    username: orders_app', `    password: ${v}`,
          '    hikari:', '      maximum-pool-size: 20', '  jpa:', '    open-in-view: false', 'management:', '  endpoints:', '    web:', '      exposure:', '        include: health,prometheus']) };
    }
    if (shape === 1) {
      return { name: 'cat docker-compose.yml', secrets: [{ kind: 'password-yaml', value: v }],
        text: text(['services:', '  db:', '    image: postgres:16-alpine', '    restart: unless-stopped', '    environment:', '      POSTGRES_USER: nextcloud', `      POSTGRES_PASSWORD: "${v}"`,
          '      POSTGRES_DB: nextcloud', '    volumes:', '      - db:/var/lib/postgresql/data', '  app:', '    image: nextcloud:29-apache', '    ports:', '      - "8080:80"', 'volumes:', '  db: {}']) };
    }
    return { name: `cat inventory/host_vars/${fqdn(r)}.yml`, secrets: [{ kind: 'password-yaml', value: v }],
      text: text(['---', `ansible_host: ${ip(r)}`, `ansible_user: ${user(r)}`, `ansible_become_password: '${v}'`, 'ansible_python_interpreter: /usr/bin/python3', 'nginx_worker_processes: auto', 'firewall_allowed_tcp_ports: [22, 80, 443]']) };
  },
};

const jsonKind: KindSpec = {
  kinds: ['password-json'],
  make(r) {
    const v = r.password();
    const shape = r.int(0, 1);
    if (shape === 0) {
      return { name: 'cat /etc/uptime-kuma/notify.json', secrets: [{ kind: 'password-json', value: v }],
        text: JSON.stringify({ name: 'ops mail', type: 'smtp', smtpHost: `smtp.${domain(r)}`, smtpPort: 587, smtpSecure: false, smtpUsername: `alerts@${domain(r)}`, smtpPassword: v, smtpTo: 'ops@example.com', isDefault: true }, null, 2) + '\n' };
    }
    return { name: 'cat appsettings.Production.json', secrets: [{ kind: 'password-json', value: v }],
      text: JSON.stringify({ Logging: { LogLevel: { Default: 'Information', 'Microsoft.AspNetCore': 'Warning' } }, AllowedHosts: '*',
        Ldap: { Server: `ldaps://${fqdn(r)}`, BindDn: 'cn=svc-portal,ou=services,dc=example,dc=com', Password: v, SearchBase: 'ou=people,dc=example,dc=com' } }, null, 2) + '\n' };
  },
};

const xmlAttr: KindSpec = {
  kinds: ['password-xml-attribute'],
  make(r) {
    const v = r.password();
    if (r.chance(0.5)) {
      return { name: 'cat /etc/tomcat10/tomcat-users.xml', secrets: [{ kind: 'password-xml-attribute', value: v }],
        text: text(['<?xml version="1.0" encoding="UTF-8"?>', '<tomcat-users xmlns="http://tomcat.apache.org/xml"', '              xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
          '              xsi:schemaLocation="http://tomcat.apache.org/xml tomcat-users.xsd"', '              version="1.0">', '  <role rolename="manager-gui"/>', '  <role rolename="admin-gui"/>',
          `  <user username="${user(r)}" password="${v}" roles="manager-gui,admin-gui"/>`, '</tomcat-users>']) };
    }
    return { name: 'cat /opt/tomcat/conf/context.xml', secrets: [{ kind: 'password-xml-attribute', value: v }],
      text: text(['<?xml version="1.0" encoding="UTF-8"?>', '<Context>', '    <WatchedResource>WEB-INF/web.xml</WatchedResource>',
        `    <Resource name="jdbc/appDB" auth="Container" type="javax.sql.DataSource" maxTotal="50" maxIdle="10" maxWaitMillis="10000"`,
        `              username="app" password="${v}" driverClassName="org.postgresql.Driver"`, `              url="jdbc:postgresql://${ip(r)}:5432/app"/>`, '</Context>']) };
  },
};

const xmlElem: KindSpec = {
  kinds: ['password-xml-element'],
  make(r) {
    const v = r.password();
    if (r.chance(0.5)) {
      return { name: 'cat ~/.m2/settings.xml', secrets: [{ kind: 'password-xml-element', value: v }],
        text: text(['<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">', '  <servers>', '    <server>', '      <id>nexus-releases</id>', `      <username>${user(r)}</username>`,
          `      <password>${v}</password>`, '    </server>', '  </servers>', '  <mirrors>', '    <mirror>', '      <id>nexus</id>', '      <mirrorOf>*</mirrorOf>',
          `      <url>https://nexus.${domain(r)}/repository/maven-public/</url>`, '    </mirror>', '  </mirrors>', '</settings>']) };
    }
    return { name: 'cat /etc/jenkins/credentials-export.xml', secrets: [{ kind: 'password-xml-element', value: v }],
      text: text(["<?xml version='1.1' encoding='UTF-8'?>", '<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>', '  <scope>GLOBAL</scope>', '  <id>deploy-ssh</id>',
        '  <description>deploy user</description>', `  <username>${user(r)}</username>`, `  <password>${v}</password>`, '</com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>']) };
  },
};

const dotenv: KindSpec = {
  kinds: ['password-dotenv'],
  make(r) {
    const v = r.password();
    const key = r.pick(['DB_PASSWORD', 'MAIL_PASSWORD', 'REDIS_PASSWORD', 'ADMIN_PASSWORD', 'SMTP_PASS', 'APP_SECRET']);
    const q = r.pick(['', '"', "'"]);
    return { name: r.pick(['cat /var/www/shop/.env', 'cat /srv/app/.env.production']), secrets: [{ kind: 'password-dotenv', value: v }],
      text: text(['APP_NAME=Shop', 'APP_ENV=production', 'APP_DEBUG=false', `APP_URL=https://shop.${domain(r)}`, '', 'LOG_CHANNEL=stack', 'LOG_LEVEL=warning', '',
        'DB_CONNECTION=mysql', `DB_HOST=${ip(r)}`, 'DB_PORT=3306', 'DB_DATABASE=shop', 'DB_USERNAME=shop', `${key}=${q}${v}${q}`, '', 'CACHE_DRIVER=redis', 'QUEUE_CONNECTION=redis', 'SESSION_LIFETIME=120']) };
  },
};

const toml: KindSpec = {
  kinds: ['password-toml'],
  make(r) {
    const v = r.password();
    if (r.chance(0.5)) {
      return { name: 'cat /etc/telegraf/telegraf.d/outputs.conf', secrets: [{ kind: 'password-toml', value: v }],
        text: text(['[[outputs.influxdb]]', `  urls = ["https://influx.${domain(r)}:8086"]`, '  database = "telegraf"', '  retention_policy = ""', '  write_consistency = "any"',
          '  timeout = "5s"', '  username = "telegraf"', `  password = "${v}"`, '  insecure_skip_verify = false']) };
    }
    return { name: 'cat /etc/grafana-agent/pgx.toml', secrets: [{ kind: 'password-toml', value: v }],
      text: text(['[database]', `host = "${ip(r)}"`, 'port = 5432', 'name = "metrics"', 'user = "exporter"', `password = '${v}'`, 'max_conns = 8', '', '[log]', 'level = "info"']) };
  },
};

export const assignSpecs: KindSpec[] = [iniKind, yamlKind, jsonKind, xmlAttr, xmlElem, dotenv, toml];
