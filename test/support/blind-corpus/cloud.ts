/** Cloud storage credentials: AWS key pairs, Azure account keys and SAS, GCS HMAC, GCP keys. */
import { ALNUM, B64URL, type Rng } from './rng.js';
import type { KindSpec } from './types.js';
import { fqdn, iso, text, user } from './context.js';
import { pemBody } from './pem.js';

const aws: KindSpec = {
  kinds: ['aws-access-key-id', 'aws-secret-access-key'],
  make(r) {
    const id = `AKIA${r.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
    const secret = r.chars(ALNUM + '+/', 40);
    const secrets = [{ kind: 'aws-access-key-id', value: id }, { kind: 'aws-secret-access-key', value: secret }];
    const shape = r.int(0, 3);
    if (shape === 0) {
      return { name: 'cat ~/.aws/credentials', secrets,
        text: text(['[default]', `aws_access_key_id = ${id}`, `aws_secret_access_key = ${secret}`, '', '[readonly]', 'role_arn = arn:aws:iam::123456789012:role/ReadOnly', 'source_profile = default']) };
    }
    if (shape === 1) {
      return { name: 'cat ~/.config/rclone/rclone.conf', secrets,
        text: text(['[s3-backup]', 'type = s3', 'provider = AWS', 'env_auth = false', `access_key_id = ${id}`, `secret_access_key = ${secret}`, 'region = eu-central-1', 'location_constraint = eu-central-1', 'acl = private', 'storage_class = STANDARD_IA']) };
    }
    if (shape === 2) {
      return { name: 'cat ~/.s3cfg', secrets,
        text: text(['[default]', `access_key = ${id}`, 'bucket_location = EU', 'host_base = s3.amazonaws.com', 'host_bucket = %(bucket)s.s3.amazonaws.com',
          `secret_key = ${secret}`, 'signature_v2 = False', 'use_https = True']) };
    }
    return { name: 'docker inspect backup --format {{json .Config.Env}}', secrets,
      text: JSON.stringify(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `AWS_ACCESS_KEY_ID=${id}`, `AWS_SECRET_ACCESS_KEY=${secret}`, 'AWS_DEFAULT_REGION=us-east-1', 'BACKUP_CRON=0 3 * * *']) + '\n' };
  },
};

const azureKey: KindSpec = {
  kinds: ['azure-storage-account-key'],
  make(r) {
    const v = r.b64(64);
    const acct = `st${r.chars('abcdefghijklmnopqrstuvwxyz0123456789', 10)}`;
    if (r.chance(0.5)) {
      return { name: 'cat /etc/default/blob-sync', secrets: [{ kind: 'azure-storage-account-key', value: v }],
        text: text(['# azcopy-based nightly sync', `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=${acct};AccountKey=${v};EndpointSuffix=core.windows.net"`, 'CONTAINER=nightly', 'SOURCE_DIR=/srv/exports']) };
    }
    return { name: `az storage account keys list -n ${acct}`, secrets: [{ kind: 'azure-storage-account-key', value: v }],
      text: JSON.stringify([{ creationTime: iso(r), keyName: 'key1', permissions: 'FULL', value: v }], null, 2) + '\n' };
  },
};

const sas: KindSpec = {
  kinds: ['azure-sas-signature'],
  make(r) {
    const v = encodeURIComponent(r.b64(32));
    const acct = `st${r.chars('abcdefghijklmnopqrstuvwxyz0123456789', 10)}`;
    const q = `sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-01-31T18:00:00Z&st=2026-12-01T10:00:00Z&spr=https&sig=${v}`;
    return { name: 'cat /usr/local/bin/ship-logs.sh', secrets: [{ kind: 'azure-sas-signature', value: v }],
      text: text(['#!/bin/sh', 'set -eu', 'DAY=$(date -d yesterday +%F)', `azcopy copy "/var/log/app/$DAY.tar.zst" "https://${acct}.blob.core.windows.net/logs/$DAY.tar.zst?${q}"`, 'logger -t ship-logs "shipped $DAY"']) };
  },
};

const gcsHmac: KindSpec = {
  kinds: ['gcs-hmac-secret'],
  make(r) {
    const id = `GOOG1E${r.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 55)}`;
    const v = r.chars(ALNUM + '+/', 40);
    if (r.chance(0.5)) {
      return { name: 'cat ~/.boto', secrets: [{ kind: 'gcs-hmac-secret', value: v }],
        text: text(['[Credentials]', `gs_access_key_id = ${id}`, `gs_secret_access_key = ${v}`, '', '[Boto]', 'https_validate_certificates = True', '', '[GSUtil]', 'default_project_id = example-prod-314159']) };
    }
    return { name: 'gcloud storage hmac create backup@example-prod.iam.gserviceaccount.com', secrets: [{ kind: 'gcs-hmac-secret', value: v }],
      text: text(['metadata:', `  accessId: ${id}`, '  etag: CAE=', `  id: example-prod/${id}`, '  kind: storage#hmacKey', '  projectId: example-prod',
        '  serviceAccountEmail: backup@example-prod.iam.gserviceaccount.com', '  state: ACTIVE', `  timeCreated: '${iso(r)}'`, `secret: ${v}`]) };
  },
};

const gcpSa: KindSpec = {
  kinds: ['gcp-service-account-private-key'],
  make(r) {
    const body = pemBody(r, 'pkcs8');
    const escapedBody = body.split('\n').join('\\n');
    const proj = `example-${r.pick(['prod', 'stage', 'data'])}-${r.int(100000, 999999)}`;
    const sa = `${r.pick(['backup', 'ci', 'exporter'])}@${proj}.iam.gserviceaccount.com`;
    const json = [
      '{', '  "type": "service_account",', `  "project_id": "${proj}",`, `  "private_key_id": "${r.hex(40)}",`,
      `  "private_key": "-----BEGIN PRIVATE KEY-----\\n${escapedBody}\\n-----END PRIVATE KEY-----\\n",`,
      `  "client_email": "${sa}",`, `  "client_id": "${r.digits(21)}",`, '  "auth_uri": "https://accounts.google.com/o/oauth2/auth",',
      '  "token_uri": "https://oauth2.googleapis.com/token",', '  "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",',
      `  "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(sa)}",`, '  "universe_domain": "googleapis.com"', '}'];
    return { name: `cat /etc/${r.pick(['loki', 'velero', 'thanos'])}/gcs-key.json`, secrets: [{ kind: 'gcp-service-account-private-key', value: escapedBody }], text: text(json) };
  },
};

const gcpApi: KindSpec = {
  kinds: ['gcp-api-key'],
  make(r) {
    const v = `AIza${r.chars(B64URL, 35)}`;
    if (r.chance(0.5)) {
      return { name: 'tail /var/log/nginx/access.log', secrets: [{ kind: 'gcp-api-key', value: v }],
        text: text([`${fqdn(r)} - - [06/Dec/2026:07:12:01 +0000] "GET /maps/api/geocode/json?address=Berlin&key=${v} HTTP/1.1" 200 1432 "-" "python-requests/2.31.0"`,
          `${fqdn(r)} - - [06/Dec/2026:07:12:04 +0000] "GET /healthz HTTP/1.1" 200 2 "-" "kube-probe/1.30"`]) };
    }
    return { name: 'cat /srv/app/config/maps.yml', secrets: [{ kind: 'gcp-api-key', value: v }],
      text: text(['maps:', '  provider: google', `  api_key: ${v}`, '  default_zoom: 12', `  owner: ${user(r)}`]) };
  },
};

export const cloudSpecs: KindSpec[] = [aws, azureKey, sas, gcsHmac, gcpSa, gcpApi];
