import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServiceProxyPathError, serviceProxyPath, serviceProxyUrl } from '../src/index.js';
import { encodeSuffixSegments, isSafeSuffix, suffixProblem } from '../src/safe-suffix.js';

const PREFIX = '/api/v1/namespaces/payments/services/ledger';

function targetOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceProxyPathError);
    return (error as ServiceProxyPathError).target;
  }
  return undefined;
}

describe('serviceProxyPath', () => {
  it('leaves the port out when none is given', () => {
    expect(serviceProxyPath({ namespace: 'payments', service: 'ledger' })).toBe(`${PREFIX}/proxy`);
  });

  it('adds a named or numbered port and a scheme', () => {
    expect(serviceProxyPath({ namespace: 'payments', service: 'ledger', port: 'http' })).toBe(
      `${PREFIX}:http/proxy`,
    );
    expect(
      serviceProxyPath({ namespace: 'payments', service: 'ledger', port: 8443, scheme: 'https' }),
    ).toBe('/api/v1/namespaces/payments/services/https:ledger:8443/proxy');
  });

  it('encodes raw suffix segments and query parameters', () => {
    expect(
      serviceProxyPath({
        namespace: 'payments',
        service: 'ledger',
        suffix: ['v1', 'a b', 'c/d', '%2e%2e'],
        query: { q: 'x&y', tag: ['1', '2'], skip: undefined },
      }),
    ).toBe(`${PREFIX}/proxy/v1/a%20b/c%2Fd/%252e%252e?q=x%26y&tag=1&tag=2`);
  });

  it('keeps an already-encoded suffix and query text', () => {
    expect(
      serviceProxyPath({
        namespace: 'payments',
        service: 'ledger',
        suffix: '/v1/a%20b/',
        query: 'page=2&sort=-date',
      }),
    ).toBe(`${PREFIX}/proxy/v1/a%20b/?page=2&sort=-date`);
    expect(
      serviceProxyPath({
        namespace: 'payments',
        service: 'ledger',
        query: new URLSearchParams('a=1'),
      }),
    ).toBe(`${PREFIX}/proxy?a=1`);
  });

  it('names the namespace, service, port or scheme that is not a Kubernetes name', () => {
    const base = { namespace: 'payments', service: 'ledger' };
    expect(targetOf(() => serviceProxyPath({ ...base, namespace: 'Payments' }))).toBe('namespace');
    expect(targetOf(() => serviceProxyPath({ ...base, namespace: 'a'.repeat(64) }))).toBe(
      'namespace',
    );
    expect(targetOf(() => serviceProxyPath({ ...base, namespace: '../kube-system' }))).toBe(
      'namespace',
    );
    expect(targetOf(() => serviceProxyPath({ ...base, service: '1ledger' }))).toBe('service');
    expect(targetOf(() => serviceProxyPath({ ...base, service: 'ledger/proxy' }))).toBe('service');
    expect(targetOf(() => serviceProxyPath({ ...base, port: 0 }))).toBe('port');
    expect(targetOf(() => serviceProxyPath({ ...base, port: 70000 }))).toBe('port');
    expect(targetOf(() => serviceProxyPath({ ...base, port: 'a--b' }))).toBe('port');
    expect(targetOf(() => serviceProxyPath({ ...base, scheme: 'ftp' as unknown as 'http' }))).toBe(
      'scheme',
    );
    expect(
      targetOf(() =>
        serviceProxyPath({ ...base, service: { toString: () => 'x' } as unknown as string }),
      ),
    ).toBe('service');
  });

  it('refuses an unencoded query with spaces or a fragment', () => {
    const base = { namespace: 'payments', service: 'ledger' };
    expect(targetOf(() => serviceProxyPath({ ...base, query: 'a=1 2' }))).toBe('query');
    expect(targetOf(() => serviceProxyPath({ ...base, query: 'a=1#frag' }))).toBe('query');
  });
});

describe('suffixes that would climb out of the proxy prefix', () => {
  const escapes = [
    '/..',
    '/../secrets',
    '/%2e%2e/%2e%2e/secrets',
    '/%2E%2E/secrets',
    '/.%2e/secrets',
    '/%2e./secrets',
    '/a/./b',
    '/%2e',
    '/a/..%2f..%2fsecrets',
    '/%252e%252e/secrets',
    '/a\\..\\secrets',
    '/a%5c..%5csecrets',
    '/%zz',
    '/a%00b',
  ];

  for (const suffix of escapes) {
    it(`refuses ${JSON.stringify(suffix)} before any URL is built`, () => {
      expect(isSafeSuffix(suffix)).toBe(false);
      expect(
        targetOf(() =>
          serviceProxyUrl('https://10.0.0.1:6443', {
            namespace: 'payments',
            service: 'ledger',
            suffix,
          }),
        ),
      ).toBe('suffix');
    });
  }

  it('shows why: Node URL itself resolves %2e%2e out of the prefix', () => {
    const url = new URL(`https://h${PREFIX}/proxy/%2e%2e/%2e%2e/secrets`);
    expect(url.pathname).toBe('/api/v1/namespaces/payments/services/secrets');
  });

  it('refuses "." and ".." as raw segments', () => {
    expect(() => encodeSuffixSegments(['..'])).toThrow(RangeError);
    expect(() => encodeSuffixSegments(['.'])).toThrow(RangeError);
    expect(encodeSuffixSegments(['...', '.a'])).toBe('/.../.a');
  });

  it('accepts ordinary suffixes, including dots inside names and encoded slashes', () => {
    for (const suffix of ['/v1/items', '/file.tar.gz', '/a%2Fb', '/..a/b..', '/%E2%82%AC', '/']) {
      expect(suffixProblem(suffix), suffix).toBeUndefined();
    }
  });

  it('never builds a URL outside the prefix, whatever the suffix', () => {
    const alphabet = fc.constantFrom('.', '%2e', '%2E', '/', '\\', '%5c', '%2f', 'a', '%25', '..');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 12 }), (parts) => {
        const suffix = `/${parts.join('')}`;
        let url: URL;
        try {
          url = serviceProxyUrl('https://10.0.0.1:6443/base', {
            namespace: 'payments',
            service: 'ledger',
            suffix,
          });
        } catch (error) {
          return error instanceof ServiceProxyPathError;
        }
        const prefix = `/base${PREFIX}/proxy`;
        return url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
      }),
      { seed: 6_443, numRuns: 500 },
    );
  });
});

describe('serviceProxyUrl', () => {
  it('keeps the path of the base URL (a gateway in front of the control plane)', () => {
    const url = serviceProxyUrl('https://gw.example/k8s/clusters/c-1/', {
      namespace: 'payments',
      service: 'ledger',
      suffix: ['v1'],
      query: { a: '1' },
    });
    expect(url.href).toBe(`https://gw.example/k8s/clusters/c-1${PREFIX}/proxy/v1?a=1`);
  });
});
