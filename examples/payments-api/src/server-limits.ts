/**
 * @module Every limit of the example's HTTP server, in one place and on purpose (Node's defaults
 * are for a general-purpose server: a minute to send headers, five minutes for a request, 5 s
 * of keep-alive, which is shorter than the idle timeout of the load balancer in front).
 * The example README lists them with the reasons.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { attachServerErrorHandlers } from '@resourceful/error-envelope';
import { DEFAULT_REQUEST_ID_HEADER } from '@resourceful/http-conventions';
import { hasMessagePrototypes, messageClassesFor } from './message-classes.js';
import { answerLongUrls, MAX_HEADER_SIZE } from './url-length.js';

export interface ServerLimits {
  /** Bytes of request line and headers Node reads; beyond, a 431 envelope. */
  readonly maxHeaderSize: number;
  /** Milliseconds for the request line and headers to arrive; beyond, a 408 envelope. */
  readonly headersTimeout: number;
  /** Milliseconds for the whole request, body included, to arrive; beyond, a 408 envelope. */
  readonly requestTimeout: number;
  /** How often Node checks the two timeouts above, in milliseconds. */
  readonly connectionsCheckingInterval: number;
  /** Milliseconds an idle keep-alive connection is kept open. */
  readonly keepAliveTimeout: number;
  /** Headers of a request Node keeps, the rest dropped unread; 0 keeps them all. */
  readonly maxHeadersCount: number;
  /** Requests served on one connection; the last answer says `Connection: close`. */
  readonly maxRequestsPerSocket: number;
}

export const SERVER_LIMITS: ServerLimits = Object.freeze({
  // Set with the URL limit: long URLs are served (spec, "Limits"), longer ones get a 414.
  maxHeaderSize: MAX_HEADER_SIZE,
  // A client that trickles its headers (slowloris) holds a connection for at most 10 s.
  headersTimeout: 10_000,
  // Bodies here are at most 100 kB: 30 s is ample on a slow mobile link.
  requestTimeout: 30_000,
  // The timeouts above are enforced within a second of expiring (Node's default is 30 s).
  connectionsCheckingInterval: 1_000,
  // Longer than the 60 s idle timeout of AWS ALB and the GCP/Azure defaults, so the load
  // balancer, not the service, closes idle connections: a request sent on a connection the
  // service is closing would fail with a reset instead of an answer.
  keepAliveTimeout: 65_000,
  // No count: a count limit drops the headers past it silently (a load balancer's
  // X-Forwarded-* and a client's Authorization come last), while maxHeaderSize already bounds
  // header flooding by bytes and refuses it loudly, with a 431.
  maxHeadersCount: 0,
  // Spreads long-lived clients over instances after a deploy or scale-out.
  maxRequestsPerSocket: 1_000,
});

/**
 * The largest request body read, in bytes (100 KiB), whoever reads it: express.json() (POST and
 * PUT bodies, GraphQL's), content-negotiation (a Latin-1 or compressed body, counted decoded and
 * inflated) and json-patch-update (JSON Patch and merge patch bodies of PATCH). Beyond it, 413
 * `PAYLOAD_TOO_LARGE` naming the bound in its message and in `innererror` `{ code:
 * 'BODY_TOO_LARGE', max_bytes }`: error-envelope answers body-parser's and raw-body's refusal so,
 * and content-negotiation its own; the OpenAPI document states it
 * (src/description/request-limits.ts).
 */
export const MAX_BODY_BYTES = 100 * 1024;

/**
 * The example's HTTP server: the app, its limits, and envelopes for what Node answers itself.
 * An Express app's requests and responses are made with its prototypes (message-classes.ts).
 */
export function createPaymentsServer(
  app: RequestListener,
  limits: ServerLimits = SERVER_LIMITS,
): Server {
  const { keepAliveTimeout, maxHeadersCount, maxRequestsPerSocket, ...options } = limits;
  const classes = hasMessagePrototypes(app) ? messageClassesFor(app) : {};
  const server = createServer({ ...options, ...classes }, app);
  server.keepAliveTimeout = keepAliveTimeout;
  server.maxHeadersCount = maxHeadersCount;
  server.maxRequestsPerSocket = maxRequestsPerSocket;
  // A request line too long for the parser gets a 414, not the 431 of oversized headers. What
  // Node answers outside the app gets a request id and the spec's Date too, as the app's answers.
  return answerLongUrls(
    attachServerErrorHandlers(server, {
      requestIdHeader: DEFAULT_REQUEST_ID_HEADER,
      dateFormat: 'rfc3339',
    }),
  );
}
