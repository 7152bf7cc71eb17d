/**
 * @module Sub-resource actions (`POST …/{resource}/{id}/{action}`) and the history of their
 * calls (`GET …/{resource}/{id}/history`), declared once per resource.
 *
 * Spec, "Complex operations": 200 with the resource when the state changed, 204 with no body
 * when it did not (also "Status codes": 204 for an action with no state change); rule 2: every
 * call recorded in a resource readable with GET.
 */
import { type CollectionSpec, paginate } from '@resourceful/collection-pagination';
import {
  conditionalWrite,
  etagFor,
  isStaleVersionError,
  type KeyedLock,
} from '@resourceful/conditional-requests';
import {
  assertKnownOptions,
  assertOptionsObject,
  describeValue,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import { getPreferences, sendPreferred } from '@resourceful/prefer-header';
import {
  assertFunction,
  assertHistoryPaging,
  assertHistoryStore,
  assertNotFound,
  assertOptionalFunction,
  assertResourcePath,
  assertSchema,
  assertSegment,
  invalid,
  nestedFactory,
  publicBaseUrlOption,
  writeGuard,
} from './checks.js';
import { type ActionRecord, type HistoryStore, memoryHistoryStore } from './history.js';
import { fillPath, makeLink, pathParameter, requestParameters } from './links.js';
import { type Loader, loaderOr404 } from './not-found.js';
import { readBody } from './read-body.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import type {
  Link,
  MaybePromise,
  Next,
  NotFoundOptions,
  Operation,
  OperationRequest,
  OperationRoute,
} from './types.js';

export interface ActionContext<T, B> {
  /** The resource as loaded under its lock. */
  resource: T;
  /** The validated body; `{}` passed through the schema when none was sent. */
  body: B;
  req: OperationRequest;
  /** The time of the call, as the history records it. */
  now: Date;
}

export interface ActionDefinition<T, B> {
  /** Schema of the optional JSON body. Without one, the action takes no body. */
  body?: StandardSchemaV1<unknown, B>;
  /**
   * Whether the action would change the resource now: it is offered as a link only then.
   * Calling it anyway is not an error: the spec answers 204.
   */
  available: (resource: T) => boolean;
  /**
   * Performs the action under the resource's lock; stores the change and resolves to `true`
   * when the state changed, `false` when there was nothing to do. Throw an `ApiError` to refuse
   * (a business rule: 422); a refused call changes nothing and is not recorded.
   */
  perform: (context: ActionContext<T, B>) => MaybePromise<boolean>;
}

/** Paging of the history sub-collection: collection-pagination's options. */
export type HistoryPagingOptions = Pick<
  CollectionSpec,
  'defaultPageSize' | 'maxPageSize' | 'totals' | 'naming' | 'allowedParameters'
>;

const HISTORY_PAGING_OPTIONS: readonly (keyof HistoryPagingOptions)[] = [
  'defaultPageSize',
  'maxPageSize',
  'totals',
  'naming',
  'allowedParameters',
];

export interface SubResourceActionsOptions<T, A extends Record<string, unknown>> {
  /** The resource's route, ending in its id parameter: `/payments/billing-agreements/:id`. */
  resource: string;
  /** Reads the resource; `undefined` when it does not exist (404). */
  load: Loader<T>;
  /** The resource as its GET sends it: the body of a 200, and the source of its ETag. */
  represent: (resource: T, req: OperationRequest) => unknown;
  /** The state recorded before and after each call, e.g. `(agreement) => agreement.state`. */
  state: (resource: T) => unknown;
  /** The actions by path segment: `{ suspend: {…}, 're-activate': {…} }`. */
  actions: { readonly [K in keyof A]: ActionDefinition<T, A[K]> };
  /** The resource id, for links. @default (resource) => resource.id */
  id?: (resource: T) => string;
  /** The 404 of a missing resource. @default { message: 'The resource does not exist.', target: the id parameter } */
  notFound?: NotFoundOptions;
  /** Who called, recorded as `actor` when known. @default none recorded */
  actor?: (req: OperationRequest) => string | undefined;
  /** Where the history is kept. @default memoryHistoryStore() */
  historyStore?: HistoryStore;
  /** The history's path segment, also its link relation's target. @default 'history' */
  historyPath?: string;
  /** Paging of the history. @default collection-pagination's defaults */
  historyPaging?: HistoryPagingOptions;
  /** Base of every link, such as `https://api.example.com`. @default the request's origin */
  publicBaseUrl?: string;
  /** @default () => new Date() */
  now?: () => Date;
  /** The lock serialising writes of one resource. @default conditional-requests' shared lock */
  lock?: KeyedLock;
  /**
   * `perform` stores its change only while the stored resource is still the one loaded and
   * throws conditional-requests' `StaleVersionError` otherwise (`UPDATE … WHERE etag = $2`), and
   * the `historyStore` refuses a record whose number is taken the same way: no in-process lock
   * is taken, so the check holds across instances sharing the store. Not together with `lock`.
   * @default false
   */
  compareAndSet?: boolean;
  /**
   * Runs each call's write, `perform` and the history append, as one unit: with a database, one
   * transaction, so that no other call sees the state change without its record (and a process
   * that dies between them leaves neither). Rejecting with what `work` rejected with rolls it
   * back; a `StaleVersionError` still runs the call again.
   * @default none: the change and its record are two writes
   */
  transaction?: <R>(work: () => Promise<R>) => Promise<R>;
}

export interface SubResourceActions<T> extends Operation {
  readonly kind: 'sub-resource-action';
  /**
   * The links to put on the resource's representation: one per action possible now (method
   * POST, rel the action's name), then `history` (method GET).
   */
  links(req: OperationRequest, resource: T): Link[];
}

const KNOWN_OPTIONS = [
  'resource',
  'load',
  'represent',
  'state',
  'actions',
  'id',
  'notFound',
  'actor',
  'historyStore',
  'historyPath',
  'historyPaging',
  'publicBaseUrl',
  'now',
  'lock',
  'compareAndSet',
  'transaction',
] as const;

const FACTORY = 'subResourceActions';

/**
 * How often a record is renumbered when another call took its number first. Every round one of
 * the contending calls appends, so as many concurrent calls as this on one resource all land.
 */
const APPEND_ATTEMPTS = 100;

function defaultId(resource: unknown): string {
  const id = (resource as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') {
    throw new TypeError(`${FACTORY}: the resource has no string "id"; pass the "id" option.`);
  }
  return id;
}

/**
 * Declares the actions of one resource and their history.
 *
 * @example
 * const agreementActions = subResourceActions({
 *   resource: '/payments/billing-agreements/:id',
 *   load: (id) => agreements.get(id),
 *   represent: (agreement, req) => ({ ...agreement, links: agreementActions.links(req, agreement) }),
 *   state: (agreement) => agreement.state,
 *   actions: {
 *     suspend: {
 *       body: z.object({ note: z.string().max(500).optional() }),
 *       available: (agreement) => agreement.state === 'ACTIVE',
 *       perform: ({ resource }) => resource.state !== 'SUSPENDED' && ((resource.state = 'SUSPENDED'), true),
 *     },
 *   },
 * });
 * mountOperations(v1, [agreementActions]);
 */
export function subResourceActions<T, A extends Record<string, unknown>>(
  options: SubResourceActionsOptions<T, A>,
): SubResourceActions<T> {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, KNOWN_OPTIONS);
  const idName = assertResourcePath(FACTORY, 'resource', options.resource);
  assertFunction(FACTORY, 'load', options.load);
  assertFunction(FACTORY, 'represent', options.represent);
  assertFunction(FACTORY, 'state', options.state);
  assertOptionalFunction(FACTORY, 'id', options.id);
  assertOptionalFunction(FACTORY, 'actor', options.actor);
  assertOptionalFunction(FACTORY, 'now', options.now);
  assertOptionalFunction(FACTORY, 'transaction', options.transaction);
  const publicBaseUrl = publicBaseUrlOption(FACTORY, options.publicBaseUrl);
  const historyPath = assertSegment(
    FACTORY,
    'historyPath',
    options.historyPath === undefined ? 'history' : options.historyPath,
  );
  assertNotFound(FACTORY, 'notFound', options.notFound);
  assertHistoryStore(FACTORY, options.historyStore);
  assertHistoryPaging(FACTORY, options.historyPaging, HISTORY_PAGING_OPTIONS);
  const actions = options.actions as Readonly<Record<string, ActionDefinition<T, unknown>>>;
  if (typeof actions !== 'object' || actions === null || Object.keys(actions).length === 0) {
    throw invalid(
      FACTORY,
      'actions',
      `"actions" must name at least one action, as in { suspend: { available, perform } }, got ${describeValue(actions)}.`,
    );
  }
  for (const [name, action] of Object.entries(actions)) {
    assertSegment(FACTORY, 'actions', name);
    if (name === historyPath) {
      throw optionError(
        OPTION_ERROR_CODES.conflictingOptions,
        FACTORY,
        `the action "${name}" would hide the history's path; choose another "historyPath".`,
        'historyPath',
      );
    }
    assertOptionsObject(`${FACTORY}: actions.${name}`, action);
    assertKnownOptions(`${FACTORY}: actions.${name}`, action, ['body', 'available', 'perform']);
    assertSchema(FACTORY, `actions.${name}.body`, action.body);
    assertFunction(FACTORY, `actions.${name}.available`, action.available);
    assertFunction(FACTORY, `actions.${name}.perform`, action.perform);
  }

  const { resource, represent, state, actor } = options;
  const idOf = options.id ?? defaultId;
  const now = options.now ?? (() => new Date());
  const store = options.historyStore ?? memoryHistoryStore();
  const loadOr404 = loaderOr404(options.load, idName, options.notFound);
  const guard = writeGuard(FACTORY, options);
  const transaction = options.transaction ?? ((work) => work());

  /**
   * Appends under the number after the count taken before the load. Under a lock the count
   * cannot move. With `compareAndSet`, a taken number means another call was recorded since:
   * a call that changed nothing then runs again from a fresh load (conditionalWrite repeats it
   * on `StaleVersionError`), so its record never follows a change it did not see; a call whose
   * change is stored counts again and takes the next number. Only calls that changed nothing
   * can have come between when the change and its record are written in one `transaction`:
   * without one, a call on another instance may load the change before its record exists.
   */
  async function appendRecord(
    id: string,
    calls: number,
    record: ActionRecord,
    changed: boolean,
  ): Promise<void> {
    let number = calls + 1;
    let entry = record;
    for (let attempt = 1; ; attempt++) {
      const numbered = { ...entry, id: `${id}-H${number}` };
      try {
        await store.append(id, numbered);
        return;
      } catch (error) {
        if (!('compareAndSet' in guard) || !isStaleVersionError(error) || !changed) throw error;
        if (attempt >= APPEND_ATTEMPTS) {
          throw new Error(`${FACTORY}: no free history number for ${id} after ${attempt} tries.`);
        }
        number = (await store.count(id)) + 1;
        // Recorded now, after the records it follows: sorted by time, the history keeps the
        // order of the numbers.
        entry = { ...entry, create_time: now().toISOString() };
      }
    }
  }

  function actionRoute(name: string, action: ActionDefinition<T, unknown>): OperationRoute {
    async function run(req: OperationRequest): Promise<{ changed: boolean; resource: T }> {
      const id = pathParameter(req, idName);
      // Validated before the lock and the load: a bad body changes nothing and is not recorded.
      const body = await readBody(action.body, req);
      let calls = 0;
      return conditionalWrite(req, {
        // The identity json-patch-update locks on: an action waits for a PATCH of the resource.
        identity: id,
        ...guard,
        load: async () => {
          // Counted before the load: a history store that is down fails the call before
          // anything changes, and a record appended after this count (a taken number) is one
          // this call's load may not have seen.
          calls = await store.count(id);
          return loadOr404(id, req);
        },
        // The tag its GET carries, so `If-Match` makes an action conditional like a PATCH.
        etag: (current) => etagFor(represent(current, req)),
        write: (current) => transaction(() => writeCall(current as T)),
      });

      async function writeCall(current: T): Promise<{ changed: boolean; resource: T }> {
        const time = now();
        // Copies: `perform` (this call's or a later one's) may change in place the object
        // `state` returned or the body, and a record keeps what was true when it was made.
        const before = structuredClone(state(current));
        const sent = structuredClone(body);
        const changed = await action.perform({ resource: current, body, req, now: time });
        if (typeof changed !== 'boolean') {
          throw new TypeError(
            `${FACTORY}: actions.${name}.perform must resolve to true (state changed) or false, got ${describeValue(changed)}.`,
          );
        }
        // Read again: a store may replace the record rather than change it in place.
        const after = changed ? await loadOr404(id, req) : current;
        const record: ActionRecord = {
          id: '',
          action: name,
          outcome: changed ? 'STATE_CHANGED' : 'NO_CHANGE',
          request: sent,
          state_before: before,
          state_after: structuredClone(state(after)),
          create_time: time.toISOString(),
        };
        const who = actor?.(req);
        if (who !== undefined) record.actor = who;
        await appendRecord(id, calls, record, changed);
        return { changed, resource: after };
      }
    }
    return {
      method: 'POST',
      path: `${resource}/${name}`,
      complexOperation: true,
      handler: function subResourceActionMiddleware(req, res, next: Next) {
        run(req)
          .then(({ changed, resource: after }) => {
            // `Prefer: return=…` as the other writes honour it (prefer-header's sendPreferred):
            // a change answers 200 with the resource, or 204 to `return=minimal`; no change
            // answers 204, or 200 with the resource to `return=representation`.
            if (!changed && getPreferences(req).return !== 'representation') {
              sendPreferred(req, res, { operation: 'update', body: undefined });
              return;
            }
            const body = represent(after, req);
            // The resource's tag, the one its GET and the next conditional action carry. Set
            // here, not left to conditionalRequests(): the answer to a POST is not a
            // representation it can tag (RFC 9110 §9.3.3), and set before the answer ends, a
            // stored answer (Service-Request-Id) replays it as sent.
            res.setHeader('ETag', etagFor(body));
            sendPreferred(req, res, { operation: changed ? 'action' : 'update', body });
          })
          // Also what fails while answering (a representation that throws), not only the run.
          .catch(next);
      },
    };
  }

  const historyRoute: OperationRoute = {
    method: 'GET',
    path: `${resource}/${historyPath}`,
    complexOperation: false,
    handler: nestedFactory(FACTORY, 'historyPaging', () =>
      paginate<ActionRecord, OperationRequest>({
        ...options.historyPaging,
        ...(publicBaseUrl === undefined ? {} : { publicBaseUrl }),
        sortable: ['create_time'],
        filterable: ['action', 'outcome'],
        timeSelectable: ['create_time'],
        source: async (req) => {
          const id = pathParameter(req, idName);
          await loadOr404(id, req);
          return store.source(id);
        },
      }),
    ),
  };

  return {
    kind: 'sub-resource-action',
    routes: [
      ...Object.entries(actions).map(([name, action]) => actionRoute(name, action)),
      historyRoute,
    ],
    links(req, current) {
      const path = fillPath(resource, { ...requestParameters(req), [idName]: idOf(current) });
      const links: Link[] = [];
      for (const [name, action] of Object.entries(actions)) {
        if (action.available(current)) {
          links.push(makeLink(req, `${path}/${name}`, name, 'POST', publicBaseUrl));
        }
      }
      links.push(makeLink(req, `${path}/${historyPath}`, 'history', 'GET', publicBaseUrl));
      return links;
    },
  };
}
