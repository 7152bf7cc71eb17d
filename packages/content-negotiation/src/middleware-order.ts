/**
 * @module The start-up check of where `contentNegotiation()` sits in an Express 4 or 5 app. The
 * middleware itself refuses a wrong order only when the first request shows it (a 500 with
 * `ERR_CONTENT_NEGOTIATION_ORDER`); reading the app's layer stack once it is built finds the
 * same mistakes, and one more the requests never show (mounted after every route), before the
 * server listens.
 *
 * Both majors keep the app's layers in order (`app._router.stack` in 4, `app.router.stack` in
 * 5), name each layer after its function (`layer.name`), mark a layer mounted on every path
 * (`regexp.fast_slash` in 4, `slash` in 5) and keep a mounted router's layers in `handle.stack`.
 */

/** Set on every middleware `contentNegotiation()` returns, so the check finds it. */
export const CONTENT_NEGOTIATION_MARK = Symbol.for('@resourceful/content-negotiation.middleware');
/** Where `@resourceful/versioned-router` lists its versions (read without importing it). */
const MOUNTED_VERSIONS = Symbol.for('@resourceful/versioned-router/versions');

/**
 * What the check can find wrong:
 * - `not-mounted`: no `contentNegotiation()` in the app (nor in a router mounted in it);
 * - `after-conditional-requests`: `conditionalRequests()` runs first, so its tags would not
 *   name the format and coding;
 * - `after-body-parser`: a body parser for every path runs first, so Latin-1 and compressed
 *   bodies are refused (415) or misread before this middleware can decode them;
 * - `after-compression`: `compression()` runs first, and would code bodies before they are
 *   converted (and again after);
 * - `after-routes`: no route comes after it, so no route's answer is negotiated.
 */
export type MiddlewareOrderRule =
  | 'not-mounted'
  | 'after-conditional-requests'
  | 'after-body-parser'
  | 'after-compression'
  | 'after-routes';

export interface MiddlewareOrderFinding {
  readonly rule: MiddlewareOrderRule;
  /** The function name of the layer in the way (`jsonParser`), when there is one. */
  readonly middleware?: string;
  readonly message: string;
}

interface Layer {
  name?: string;
  handle?: unknown;
  route?: unknown;
  /** Express 4: `fast_slash` on a layer mounted on every path. */
  regexp?: { fast_slash?: boolean };
  /** Express 5 (router 2): a layer mounted on every path. */
  slash?: boolean;
}

type Kind = 'negotiation' | 'conditional' | 'body-parser' | 'compression' | 'route';

interface Step {
  readonly kind: Kind;
  readonly name: string;
  /** Mounted on every path, itself and every router it is in. */
  readonly everyPath: boolean;
}

/** body-parser 1 and 2 name their middleware so (`express.json()` and the like). */
const BODY_PARSERS: ReadonlySet<string> = new Set([
  'jsonParser',
  'urlencodedParser',
  'textParser',
  'rawParser',
]);
/** The names the middleware of conditional-requests and compression carry. */
const CONDITIONAL_REQUESTS = 'conditionalRequestsMiddleware';
const COMPRESSION = 'compression';
/** Express's own closure around a mounted sub-app: it answers requests, like a route. */
const MOUNTED_APP = 'mounted_app';
const MAX_DEPTH = 32;

function stackOf(value: unknown): readonly Layer[] | undefined {
  if ((typeof value === 'function' || typeof value === 'object') && value !== null) {
    const stack = (value as { stack?: unknown }).stack;
    if (Array.isArray(stack)) return stack as Layer[];
  }
  return undefined;
}

/** The layer stack of an Express 4 or 5 app, or of a router. */
function appStack(app: object): readonly Layer[] {
  const own = stackOf(app);
  if (own !== undefined) return own;
  const candidate = app as { lazyrouter?: unknown; _router?: unknown; router?: unknown };
  // Express 4's `app.router` getter throws; its router is `_router`, made with the first `use`.
  if (typeof candidate.lazyrouter === 'function') return stackOf(candidate._router) ?? [];
  const stack = stackOf(candidate.router);
  if (stack !== undefined) return stack;
  throw new TypeError(
    'checkContentNegotiationOrder: expected an Express 4 or 5 application or router.',
  );
}

function kindOf(layer: Layer): Kind | undefined {
  if (layer.route !== undefined) return 'route';
  const handle = layer.handle as Record<symbol, unknown> | undefined;
  if (typeof handle === 'function' && handle[CONTENT_NEGOTIATION_MARK] === true) {
    return 'negotiation';
  }
  const name = layer.name ?? '';
  if (name === CONDITIONAL_REQUESTS) return 'conditional';
  if (BODY_PARSERS.has(name)) return 'body-parser';
  if (name === COMPRESSION) return 'compression';
  if (name === MOUNTED_APP) return 'route';
  return undefined;
}

/** The app's middleware and routes in the order a request meets them. */
function steps(stack: readonly Layer[], everyPath: boolean, out: Step[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const layer of stack) {
    const here = everyPath && (layer.regexp?.fast_slash === true || layer.slash === true);
    const kind = kindOf(layer);
    if (kind !== undefined) {
      out.push({ kind, name: layer.name ?? '', everyPath: here });
      continue;
    }
    const inner = stackOf(layer.handle);
    if (inner !== undefined) steps(inner, here, out, depth + 1);
    const versions = (layer.handle as Record<symbol, unknown> | null | undefined)?.[
      MOUNTED_VERSIONS
    ];
    if (Array.isArray(versions)) {
      for (const version of versions as readonly { handler?: unknown }[]) {
        const versionStack = stackOf(version.handler);
        // Each version is mounted on its own path segment.
        if (versionStack !== undefined) steps(versionStack, false, out, depth + 1);
      }
    }
  }
}

const WHY =
  'contentNegotiation() must come before the body parsers, conditionalRequests() and compression, and before the routes whose answers it negotiates (see the "Where it goes" section of its README).';

/**
 * Reads an Express 4 or 5 app (or router) as built and lists what is wrong with where
 * `contentNegotiation()` sits; an empty array means the order is right. Run it once the app
 * is assembled, before listening (`assertContentNegotiationOrder` throws instead).
 *
 * Only what runs for every path counts against it: a body parser mounted on one path
 * (`app.use('/graphql', express.json())`, an endpoint with media types of its own) may come
 * first; a request that goes on from there to this middleware is still refused with a 500.
 *
 * @example
 * expect(checkContentNegotiationOrder(app)).toEqual([]);
 */
export function checkContentNegotiationOrder(app: object): MiddlewareOrderFinding[] {
  const order: Step[] = [];
  steps(appStack(app), true, order, 0);
  const at = order.findIndex((step) => step.kind === 'negotiation');
  if (at === -1) {
    return [
      {
        rule: 'not-mounted',
        message: `contentNegotiation() is not mounted in this app. ${WHY}`,
      },
    ];
  }
  const findings: MiddlewareOrderFinding[] = [];
  for (const step of order.slice(0, at)) {
    if (step.kind === 'conditional') {
      findings.push({
        rule: 'after-conditional-requests',
        middleware: step.name,
        message: `conditionalRequests() is mounted before contentNegotiation(): its tags would not name the format and coding sent. ${WHY}`,
      });
    } else if (step.kind === 'body-parser' && step.everyPath) {
      findings.push({
        rule: 'after-body-parser',
        middleware: step.name,
        message: `The body parser ${step.name} is mounted before contentNegotiation(): ISO-8859-1 and compressed JSON bodies would be refused or misread. ${WHY}`,
      });
    } else if (step.kind === 'compression') {
      findings.push({
        rule: 'after-compression',
        middleware: step.name,
        message: `compression() is mounted before contentNegotiation(), which compresses answers itself after converting them. ${WHY}`,
      });
    }
  }
  const routesBefore = order.slice(0, at).some((step) => step.kind === 'route');
  const routesAfter = order.slice(at + 1).some((step) => step.kind === 'route');
  if (routesBefore && !routesAfter) {
    findings.push({
      rule: 'after-routes',
      message: `contentNegotiation() is mounted after every route: no answer is negotiated. ${WHY}`,
    });
  }
  return findings;
}

/**
 * Throws an `Error` with `code` `ERR_CONTENT_NEGOTIATION_ORDER` (and the `findings`) when
 * `checkContentNegotiationOrder(app)` finds anything: call it once the app is built, so a wrong
 * order stops the service at start-up rather than at its first request.
 */
export function assertContentNegotiationOrder(app: object): void {
  const findings = checkContentNegotiationOrder(app);
  if (findings.length === 0) return;
  const error = new Error(findings.map((finding) => finding.message).join('\n')) as Error & {
    code: string;
    findings: readonly MiddlewareOrderFinding[];
  };
  error.code = 'ERR_CONTENT_NEGOTIATION_ORDER';
  error.findings = findings;
  throw error;
}
