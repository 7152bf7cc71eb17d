/**
 * @module A throw-away certificate authority, made with openssl when a suite starts: a CA, a
 * server certificate for 127.0.0.1 and localhost, and a client certificate.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** Folder holding the PEM files (`ca.crt`, `server.crt`, …); removed by `cleanup()`. */
  readonly dir: string;
  readonly caFile: string;
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A second, unrelated CA, to prove that verification really happens. */
  readonly otherCa: string;
  readonly otherCaFile: string;
  cleanup(): void;
}

function openssl(args: readonly string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

/** `openssl req` arguments for a new P-256 key, unencrypted, written to `name.key`. */
function newKey(name: string): string[] {
  return [
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
  ];
}

function makeCa(dir: string, name: string): void {
  openssl(
    [
      'req',
      '-x509',
      ...newKey(name),
      '-out',
      `${name}.crt`,
      '-subj',
      `/CN=${name}`,
      '-days',
      '2',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
}

function makeLeaf(dir: string, name: string, subject: string, extensions: string): void {
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(['req', ...newKey(name), '-out', `${name}.csr`, '-subj', subject], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
}

/** Makes a fresh CA and certificates in a temporary folder. Takes a few tens of milliseconds. */
export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-proxy-ca-'));
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  makeLeaf(
    dir,
    'server',
    '/CN=localhost',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' +
      'keyUsage=critical,digitalSignature,keyEncipherment\n',
  );
  makeLeaf(
    dir,
    'client',
    '/CN=test-user/O=system:masters',
    'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n',
  );
  const read = (file: string) => readFileSync(join(dir, file), 'utf8');
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    ca: read('ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    clientCertFile: join(dir, 'client.crt'),
    clientKeyFile: join(dir, 'client.key'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
    otherCa: read('other-ca.crt'),
    otherCaFile: join(dir, 'other-ca.crt'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Another server certificate from the CA of `certs`, naming only `subjectAltName` (OpenSSL's
 * syntax: `IP:127.0.0.1`, `DNS:proxy.test`), for a test that needs a name the usual server
 * certificate (127.0.0.1 and localhost) does not tell apart. Written into `certs.dir`.
 */
export function makeServerCertificate(
  certs: TestCertificates,
  name: string,
  subjectAltName: string,
): { cert: string; key: string } {
  makeLeaf(
    certs.dir,
    name,
    `/CN=${name}`,
    `subjectAltName=${subjectAltName}\nextendedKeyUsage=serverAuth\n` +
      'keyUsage=critical,digitalSignature,keyEncipherment\n',
  );
  return {
    cert: readFileSync(join(certs.dir, `${name}.crt`), 'utf8'),
    key: readFileSync(join(certs.dir, `${name}.key`), 'utf8'),
  };
}
