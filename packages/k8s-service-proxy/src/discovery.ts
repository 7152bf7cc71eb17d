/**
 * @module `GET {base}/api`: the API versions the control plane serves (spec: "Cluster
 * control-plane interface"). With credentials the answer also has `kind` and
 * `serverAddressByClientCIDRs`.
 */

import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import type { ClusterCredentials } from './cluster-credentials.js';

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

/** Calls `GET {server}/api` with the credentials and returns the typed answer. */
export function getApiVersions(
  credentials: ClusterCredentials,
  options: GetApiVersionsOptions = {},
): Promise<ApiVersions> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { server } = credentials;
  const send = server.protocol === 'https:' ? request : httpRequest;
  const headers: Record<string, string> = { Accept: 'application/json' };
  const authorization = credentials.authorization();
  if (authorization !== undefined) headers.Authorization = authorization;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        agent: credentials.agent,
        hostname: server.hostname.replace(/^\[|\]$/g, ''),
        port: server.port || (server.protocol === 'https:' ? 443 : 80),
        method: 'GET',
        path: `${server.pathname.replace(/\/+$/, '')}/api`,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > 1_000_000) {
            req.destroy();
            reject(new DiscoveryError('the /api answer is larger than 1 MB', res.statusCode));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) {
            reject(
              new DiscoveryError(
                `the control plane answered /api with ${res.statusCode}`,
                res.statusCode,
              ),
            );
            return;
          }
          try {
            resolve(parseApiVersions(Buffer.concat(chunks).toString('utf8')));
          } catch (error) {
            reject(error);
          }
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        new DiscoveryError(`cannot reach the control plane (${error.code ?? 'error'})`, undefined),
      ),
    );
    req.end();
  });
}
