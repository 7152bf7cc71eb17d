/**
 * createLocalProxy, createRequestFilter and runProxyCommand refuse a bad option at construction
 * with an option-checks error: a TypeError with a stable `code` naming the option.
 */
import { createClusterCredentials } from '@resourceful/k8s-service-proxy';
import { thrownBy } from '@resourceful/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalProxy, createRequestFilter, runProxyCommand } from '../src/index.js';

const credentials = createClusterCredentials({ server: 'https://127.0.0.1:6443', token: 't' });
afterAll(() => credentials.close());

const INVALID = 'ERR_RESOURCEFUL_INVALID_OPTION';

describe('createLocalProxy construction errors', () => {
  it('names missing credentials', () => {
    const error = thrownBy(() => createLocalProxy({} as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code: 'ERR_RESOURCEFUL_MISSING_OPTION', option: 'credentials' });
    expect(error.message).toMatch(/^createLocalProxy: "credentials" is required/);
  });

  it.each([
    ['credentials', {}],
    ['credentials', 'kubeconfig'],
    ['port', -1],
    ['port', 65536],
    ['port', 1.5],
    ['port', '8001'],
    ['port', Number.NaN],
    ['address', 5],
    ['unixSocket', {}],
    ['apiPrefix', 5],
    ['apiPrefix', 'api'],
    ['wwwPrefix', 'static/'],
    ['www', []],
    ['disableFilter', 'yes'],
    ['appendServerPath', 1],
    ['timeoutMs', 'x'],
    ['timeoutMs', Number.POSITIVE_INFINITY],
    ['timeoutMs', 1e300],
    ['log', 'stderr'],
    ['acceptHosts', 5],
    ['rejectPaths', null],
    ['rejectMethods', '('],
  ])('refuses %s: %j, naming it', (option, value) => {
    const error = thrownBy(() => createLocalProxy({ credentials, [option]: value } as never));
    expect(error).toBeInstanceOf(TypeError);
    expect({ code: error.code, option: error.option }).toEqual({ code: INVALID, option });
    expect(error.message).toMatch(new RegExp(`^createLocalProxy: "${option}" must be`));
  });

  it('refuses a key under __proto__ as an unknown option', () => {
    const options = JSON.parse('{"__proto__": {"port": 1}}');
    expect(thrownBy(() => createLocalProxy({ credentials, ...options }))).toMatchObject({
      code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
    });
  });
});

describe('createRequestFilter construction errors', () => {
  it('names the list that is not a string, and the invalid expression with its kubectl flag', () => {
    expect(thrownBy(() => createRequestFilter({ acceptPaths: ['^/api'] } as never))).toMatchObject({
      code: INVALID,
      option: 'acceptPaths',
    });
    const error = thrownBy(() => createRequestFilter({ rejectPaths: '^/ok,(' }));
    expect(error).toMatchObject({ code: INVALID, option: 'rejectPaths' });
    expect(error.message).toMatch(/--reject-paths: "\(" is not a valid regular expression/);
  });
});

describe('runProxyCommand argument errors', () => {
  const io = { stdout: () => {}, stderr: () => {} };

  it.each([
    ['argv', [undefined, io]],
    ['argv', ['--port=1', io]],
    ['argv', [[5], io]],
    ['io', [[], undefined]],
    ['io', [[], { stdout: () => {} }]],
  ])('rejects a bad %s naming it', async (option, args) => {
    await expect(
      (runProxyCommand as (...a: unknown[]) => Promise<unknown>)(...(args as unknown[])),
    ).rejects.toMatchObject({ code: INVALID, option });
  });
});
