/**
 * @module Checks a certificate authority bundle before any connection uses it. Node hands the
 * bundle to OpenSSL, which skips what is not a PEM certificate: a DER file or random text left
 * the agent with no trusted root, and every request then failed with 502. kubectl refuses such a
 * bundle at start ("unable to load root certificates"); so does this package, with client-go's
 * reasons (`transport.rootCertPool`): the bundle is usable when at least one `CERTIFICATE` block
 * parses.
 */
import { X509Certificate } from 'node:crypto';

/** A PEM block: type, then base64 (RFC 7468 §2); headers are not allowed on certificates. */
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/**
 * Why the bundle holds no usable certificate, in client-go's words, or `undefined` when at least
 * one `CERTIFICATE` block parses (others, and text between blocks, are skipped as Go does).
 */
export function certificateAuthorityProblem(bundle: string | Buffer): string | undefined {
  const text = typeof bundle === 'string' ? bundle : bundle.toString('latin1');
  let blocks = 0;
  let unparsed: string | undefined;
  for (const match of text.matchAll(PEM_BLOCK)) {
    blocks++;
    const [block, type, body] = match;
    if (type !== 'CERTIFICATE' || (body ?? '').includes(':')) continue;
    try {
      new X509Certificate(block);
      return undefined;
    } catch (error) {
      unparsed ??= (error as Error).message;
    }
  }
  if (blocks === 0) return 'unable to parse bytes as PEM block';
  if (unparsed !== undefined) return `failed to parse certificate: ${unparsed}`;
  return 'no valid certificate authority data seen';
}
