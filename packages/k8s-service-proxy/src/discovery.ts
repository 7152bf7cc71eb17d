/**
 * @module `GET {base}/api`: the API versions the control plane serves (spec: "Cluster
 * control-plane interface"). With credentials the answer also has `kind` and
 * `serverAddressByClientCIDRs`.
 */

import {
  assertKnownOptions,
  assertOptionsObject,
  millisecondsOption,
} from '@resourceful/option-checks';
import type { ClusterCredentials } from './cluster-credentials.js';
import { credentialsOption } from './option-values.js';
import { UPSTREAM_TIMEOUT } from './upstream-errors.js';
import { callUpstream } from './upstream-transport.js';

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

export interface ApiVersions {
  /** `APIVersions` when the request was authenticated. */
  kind?: string;
  versions: string[];
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[];
}

/** Thrown when the control plane answers `/api` with something other than 200 APIVersions. */
export class DiscoveryError extends Error {
  override readonly name = 'DiscoveryError';
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

export interface GetApiVersionsOptions {
  /** Abort after this many milliseconds. @default 10000 */
  timeoutMs?: number;
}

function parseApiVersions(body: string): ApiVersions {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new DiscoveryError('the control plane answered /api with a body that is not JSON', 200);
  }
  const object = value as Record<string, unknown> | null;
  if (
    typeof object !== 'object' ||
    object === null ||
    !Array.isArray(object.versions) ||
    !object.versions.every((version) => typeof version === 'string')
  ) {
    throw new DiscoveryError('the control plane answered /api without a versions array', 200);
  }
  const result: ApiVersions = { versions: [...(object.versions as string[])] };
  if (typeof object.kind === 'string') result.kind = object.kind;
  if (Array.isArray(object.serverAddressByClientCIDRs)) {
    result.serverAddressByClientCIDRs = object.serverAddressByClientCIDRs
      .filter(
        (entry): entry is ServerAddressByClientCIDR =>
          typeof entry === 'object' &&
          entry !== null &&
          typeof (entry as ServerAddressByClientCIDR).clientCIDR === 'string' &&
          typeof (entry as ServerAddressByClientCIDR).serverAddress === 'string',
      )
      .map(({ clientCIDR, serverAddress }) => ({ clientCIDR, serverAddress }));
  }
  return result;
}

/**
 * Calls `GET {server}/api` with the credentials and returns the answer. Rejects with the
 * resolver's ApiError when no credential can be had (an exec plugin failed).
 */
export async function getApiVersions(
  credentials: ClusterCredentials,
  options: GetApiVersionsOptions = {},
): Promise<ApiVersions> {
  credentialsOption('getApiVersions', credentials);
  assertOptionsObject('getApiVersions', options);
  assertKnownOptions('getApiVersions', options, ['timeoutMs']);
  const timeoutMs = millisecondsOption('getApiVersions', 'timeoutMs', options.timeoutMs, 10_000, {
    positive: true,
  });
  const { server } = credentials;
  const auth = await credentials.requestAuth();
  const headers: Record<string, string | readonly string[]> = {
    accept: 'application/json',
    ...credentials.impersonationHeaders,
  };
  if (auth.authorization !== undefined) headers.authorization = auth.authorization;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error: Error | undefined, value?: ApiVersions) => {
      if (settled) return;
      settled = true;
      if (error === undefined) resolve(value as ApiVersions);
      else reject(error);
    };
    const call = callUpstream(
      credentials,
      {
        method: 'GET',
        path: `${server.pathname.replace(/\/+$/, '')}/api`,
        headers: headers as Record<string, string | string[]>,
        timeoutMs,
        agent: auth.agent,
      },
      {
        error: (error: NodeJS.ErrnoException) => {
          const code = error.code === UPSTREAM_TIMEOUT ? 'ETIMEDOUT' : (error.code ?? 'error');
          settle(new DiscoveryError(`cannot reach the control plane (${code})`, undefined));
        },
        answer: ({ status, body }) => {
          if (status === 401) credentials.rejected(auth);
          const chunks: Buffer[] = [];
          let size = 0;
          body.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > 1_000_000) {
              settle(new DiscoveryError('the /api answer is larger than 1 MB', status));
              call.abort();
              return;
            }
            chunks.push(chunk);
          });
          body.on('end', () => {
            if (status !== 200) {
              settle(new DiscoveryError(`the control plane answered /api with ${status}`, status));
              return;
            }
            try {
              settle(undefined, parseApiVersions(Buffer.concat(chunks).toString('utf8')));
            } catch (error) {
              settle(error as Error);
            }
          });
        },
      },
    );
  });
}
