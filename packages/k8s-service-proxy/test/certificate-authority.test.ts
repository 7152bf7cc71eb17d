/**
 * A certificate authority in which no PEM certificate parses (a DER file, random text, a key) is
 * refused when the credentials are built, naming the file or field, as kubectl refuses it
 * ("unable to load root certificates"). Before, it was skipped by OpenSSL and every request
 * answered 502.
 */

import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKubeconfig } from '@resourceful/test-support';
import { makeCertificates, type TestCertificates } from '@resourceful/test-support/k8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterCredentials, findClusterCredentials } from '../src/index.js';

let certs: TestCertificates;
let dir: string;
let derFile: string;
let textFile: string;

beforeAll(() => {
  certs = makeCertificates();
  dir = mkdtempSync(join(tmpdir(), 'ca-check-'));
  derFile = join(dir, 'ca.der');
  writeFileSync(derFile, new X509Certificate(certs.ca).raw);
  textFile = join(dir, 'ca.txt');
  writeFileSync(textFile, 'not a certificate\n');
});
afterAll(() => {
  certs.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const server = 'https://127.0.0.1:6443';
const find = (kubeconfig: string, extra: object = {}) =>
  findClusterCredentials({ kubeconfig, inCluster: false, ...extra });

describe('a certificate authority that holds no PEM certificate', () => {
  it('is refused at start when the kubeconfig names a DER file, naming the file', () => {
    const kubeconfig = writeKubeconfig(dir, { server, caFile: derFile, user: { token: 't' } });
    expect(() => find(kubeconfig)).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        option: 'caFile',
        message: expect.stringContaining(
          `certificate authority file ${derFile} (caFile, kubeconfig certificate-authority) holds no PEM certificate: unable to load root certificates: unable to parse bytes as PEM block`,
        ),
      }),
    );
  });

  it.each([
    ['random text', () => 'not a certificate', /unable to parse bytes as PEM block/],
    ['a private key', () => certs.clientKey, /no valid certificate authority data seen/],
    [
      'a CERTIFICATE block that does not parse',
      () => '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
      /failed to parse certificate/,
    ],
  ])('is refused when given as ca: %s, naming ca', (_, ca, reason) => {
    const build = () => createClusterCredentials({ server, token: 't', ca: ca() });
    expect(build).toThrow(expect.objectContaining({ option: 'ca' }));
    expect(build).toThrow(reason);
  });

  it('is refused when given as caFile, and when the service account ca.crt is not PEM', () => {
    expect(() => createClusterCredentials({ server, token: 't', caFile: textFile })).toThrow(
      expect.objectContaining({ option: 'caFile', message: expect.stringContaining(textFile) }),
    );
    const account = join(dir, 'serviceaccount');
    mkdirSync(account, { recursive: true });
    writeFileSync(join(account, 'token'), 't');
    writeFileSync(join(account, 'ca.crt'), new X509Certificate(certs.ca).raw);
    expect(() =>
      findClusterCredentials({
        kubeconfig: false,
        inCluster: {
          dir: account,
          env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
        },
      }),
    ).toThrow(/the service account's ca\.crt holds no PEM certificate/);
  });

  it('is accepted when one certificate parses among other text, as Go skips the rest', () => {
    const bundle = `# comment\n${certs.ca}\ntrailing text\n${certs.clientKey}`;
    createClusterCredentials({ server, token: 't', ca: bundle }).close();
  });

  it('is not read when an explicit CA replaces it, as kubectl --certificate-authority', () => {
    const kubeconfig = writeKubeconfig(dir, {
      server,
      caFile: derFile,
      user: { token: 't' },
      name: 'replaced.yaml',
    });
    find(kubeconfig, { caFile: certs.caFile })?.close();
    find(kubeconfig, { ca: certs.ca })?.close();
  });
});
