import { useControlPlane } from '@resourceful/test-support/k8s';
import { describe, expect, it } from 'vitest';
import { createClusterCredentials, DiscoveryError, getApiVersions } from '../src/index.js';

const k8s = useControlPlane({ tokens: ['t0k3n'] });

describe('getApiVersions', () => {
  it('returns versions, kind and serverAddressByClientCIDRs with a bearer token', async () => {
    const credentials = createClusterCredentials({
      server: k8s.plane.url,
      token: 't0k3n',
      ca: k8s.certs.ca,
    });
    await expect(getApiVersions(credentials)).resolves.toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [
        { clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${k8s.plane.port}` },
      ],
    });
    credentials.close();
  });

  it('authenticates with a client certificate as well', async () => {
    const credentials = createClusterCredentials({
      server: k8s.plane.url,
      ca: k8s.certs.ca,
      clientCert: k8s.certs.clientCert,
      clientKey: k8s.certs.clientKey,
    });
    await expect(getApiVersions(credentials)).resolves.toMatchObject({ kind: 'APIVersions' });
    expect(k8s.plane.requests.at(-1)?.auth).toBe('client-certificate');
    credentials.close();
  });

  it('rejects with the status, not the token, when the token is refused (401)', async () => {
    const credentials = createClusterCredentials({
      server: k8s.plane.url,
      token: 'wrong-secret',
      ca: k8s.certs.ca,
    });
    const error = await getApiVersions(credentials).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscoveryError);
    expect((error as DiscoveryError).status).toBe(401);
    expect((error as Error).message).not.toContain('wrong-secret');
    credentials.close();
  });

  it('verifies the server certificate against the CA', async () => {
    const credentials = createClusterCredentials({
      server: k8s.plane.url,
      token: 't0k3n',
      ca: k8s.certs.otherCa,
    });
    await expect(getApiVersions(credentials)).rejects.toThrow(/cannot reach the control plane/);
    credentials.close();
  });

  it('checks the name in the certificate: localhost is in its SAN, 127.0.0.2 is not', async () => {
    const byName = createClusterCredentials({
      server: `https://localhost:${k8s.plane.port}`,
      token: 't0k3n',
      ca: k8s.certs.ca,
    });
    await expect(getApiVersions(byName)).resolves.toMatchObject({ versions: ['v1'] });
    byName.close();
    const wrongName = createClusterCredentials({
      server: k8s.plane.url,
      token: 't0k3n',
      ca: k8s.certs.ca,
      tlsServerName: 'api.example.com',
    });
    await expect(getApiVersions(wrongName)).rejects.toThrow(DiscoveryError);
    wrongName.close();
  });
});
