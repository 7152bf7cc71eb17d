/**
 * @module The bounds every request is held to, stated in the OpenAPI document: the largest body
 * read (`MAX_BODY_BYTES`, 413 beyond) and the longest URL served (`MAX_URL_LENGTH`, 414 beyond).
 * The spec leaves the body size "not shown" and asks for a 414 when a URL is too long; a client
 * (or a generator) reading the document learns both numbers before it meets the refusal:
 *
 * - `x-request-limits` on the document, for tools: `{ max_body_bytes, max_url_length }`;
 * - the same in words in `info.description`, for people (the reference page shows it first);
 * - each request body's `description`, and the `Error413` / `Error414` responses' descriptions,
 *   each with its number as `x-max-body-bytes` / `x-max-url-length`;
 * - a 413 on every operation, not only those that take a body: a JSON body sent with a GET or a
 *   DELETE is read (and bounded) like any other, so that a client sending one never has it
 *   ignored unread, and past the bound it is a 413 there too. Every operation already lists 414.
 *   For the same reason every operation lists 415: a body there in a coding (`Content-Encoding:
 *   zstd`) or charset (`charset=koi8-r`) the service cannot decode is refused with 415 before
 *   anything runs, whatever the method.
 */
import type { OpenApiDocument } from '@resourceful/api-description';
import { MAX_BODY_BYTES } from '../server-limits.js';
import { MAX_URL_LENGTH } from '../url-length.js';

/** The bounds as the document's `x-request-limits` gives them. */
export const REQUEST_LIMITS = Object.freeze({
  max_body_bytes: MAX_BODY_BYTES,
  max_url_length: MAX_URL_LENGTH,
});

const KIB = 1024;

/** `102 400 bytes (100 KiB)`. */
function bytesInWords(bytes: number): string {
  return `${bytes.toLocaleString('en-US').replace(/,/g, ' ')} bytes (${bytes / KIB} KiB)`;
}

const BODY_WORDS = `A request body is read up to ${bytesInWords(MAX_BODY_BYTES)}, counted as received and again once decoded and inflated (a Latin-1 or compressed body); a larger one is refused with 413 \`PAYLOAD_TOO_LARGE\` (\`innererror.max_bytes\` gives the bound) and changes nothing.`;
const URL_WORDS = `A URL (path and query) is served up to ${MAX_URL_LENGTH.toLocaleString('en-US').replace(/,/g, ' ')} characters (${MAX_URL_LENGTH / KIB} KiB); a longer one is refused with 414 \`URI_TOO_LONG\` (\`innererror.max_length\` gives the bound).`;

/** The paragraph `info.description` ends with. */
export const LIMITS_DESCRIPTION = `**Request limits.** ${BODY_WORDS} ${URL_WORDS}`;

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `document` with the request limits stated (see the module comment); `document` is not changed. */
export function withRequestLimits(document: OpenApiDocument): OpenApiDocument {
  const info = (document.info ?? {}) as Json;
  const components = (document.components ?? {}) as Json;
  const responses = (components.responses ?? {}) as Json;
  const paths: Json = {};
  for (const [path, item] of Object.entries((document.paths ?? {}) as Json)) {
    if (!isObject(item)) {
      paths[path] = item;
      continue;
    }
    const limited: Json = { ...item };
    for (const method of METHODS) {
      const operation = item[method];
      if (isObject(operation)) limited[method] = withLimitResponses(operation);
    }
    paths[path] = limited;
  }
  return {
    ...document,
    info: {
      ...info,
      description:
        typeof info.description === 'string'
          ? `${info.description}\n\n${LIMITS_DESCRIPTION}`
          : LIMITS_DESCRIPTION,
    },
    'x-request-limits': { ...REQUEST_LIMITS },
    paths,
    components: {
      ...components,
      responses: {
        ...responses,
        Error413: {
          ...(responses.Error413 as Json),
          description: `The body is larger than ${bytesInWords(MAX_BODY_BYTES)}, the most the service reads (a JSON body is read, and bounded, whatever the method); \`innererror.max_bytes\` gives the bound.`,
          'x-max-body-bytes': MAX_BODY_BYTES,
        },
        Error414: {
          ...(responses.Error414 as Json),
          description: `The URL (path and query) is longer than ${MAX_URL_LENGTH} characters, the longest the service serves; \`innererror.max_length\` gives the bound.`,
          'x-max-url-length': MAX_URL_LENGTH,
        },
      },
    },
  };
}

/** The operation with 413, 414 and 415 among its responses, and its body's bound in words. */
function withLimitResponses(operation: Json): Json {
  const responses = (operation.responses ?? {}) as Json;
  const limited: Json = {
    ...operation,
    responses: sortedByStatus({
      ...responses,
      '413': responses['413'] ?? { $ref: '#/components/responses/Error413' },
      '414': responses['414'] ?? { $ref: '#/components/responses/Error414' },
      '415': responses['415'] ?? { $ref: '#/components/responses/Error415' },
    }),
  };
  if (isObject(operation.requestBody)) {
    const body = operation.requestBody;
    limited.requestBody = {
      ...body,
      description:
        typeof body.description === 'string' ? `${body.description} ${bodyBound()}` : bodyBound(),
      'x-max-body-bytes': MAX_BODY_BYTES,
    };
  }
  return limited;
}

function bodyBound(): string {
  return `At most ${bytesInWords(MAX_BODY_BYTES)}; a larger body is answered 413.`;
}

/** Responses in status order, as the generator writes them (`default` last). */
function sortedByStatus(responses: Json): Json {
  return Object.fromEntries(
    Object.entries(responses).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b)),
  );
}

function rank(status: string): number {
  const number = Number(status.replace(/X/gi, '0'));
  return Number.isFinite(number) ? number : 1_000;
}
