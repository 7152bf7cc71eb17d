/**
 * @module Checks a client certificate and key before any connection uses them. Node loads them
 * only when a connection is made, and a pair OpenSSL refuses then throws inside
 * `https.request()`, where it would look like a bad request rather than a bad credential.
 */
import { createSecureContext } from 'node:tls';

/**
 * Why OpenSSL refuses the pair (`key values mismatch`, `no start line`, …), or `undefined` when
 * it loads. OpenSSL's messages name the check, never the PEM's content.
 */
export function keyPairProblem(cert: string | Buffer, key: string | Buffer): string | undefined {
  try {
    createSecureContext({ cert, key });
    return undefined;
  } catch (error) {
    const message = (error as Error).message.replace(/^error:[0-9A-Fa-f]+:[^:]*::/, '');
    const code = (error as NodeJS.ErrnoException).code;
    return code === undefined ? message : `${message}, ${code}`;
  }
}
