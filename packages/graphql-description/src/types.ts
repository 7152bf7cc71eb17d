/**
 * @module What a service hands the schema builder: resolvers that read through its own data
 * sources, so a resource read over GraphQL equals its REST representation.
 */

/** The arguments of a generated list field, as the list resolver receives them. */
export interface ListArguments {
  readonly page: number;
  readonly page_size: number;
  readonly total_required: boolean;
  readonly sort_by?: string;
  readonly sort_order?: 'asc' | 'desc';
  /** Equality filters the client gave, by field. */
  readonly filters: Readonly<Record<string, string>>;
  /** Time selection the client gave: `{field}_after` / `{field}_before`, RFC 3339. */
  readonly times: Readonly<Record<string, string>>;
}

/** The paging arguments of a search field. */
export interface PageArguments {
  readonly page: number;
  readonly page_size: number;
  readonly total_required: boolean;
}

/** A page of a collection (spec: "Collection envelope"). */
export interface CollectionPage {
  readonly items: readonly unknown[];
  readonly total_items?: number;
  readonly total_pages?: number;
  readonly links: readonly unknown[];
}

export interface ResourceResolvers<Context> {
  /** The representation of one resource, or `undefined`/`null` when there is none. */
  readonly read?: (id: string, context: Context) => unknown;
  readonly list?: (
    args: ListArguments,
    context: Context,
  ) => CollectionPage | Promise<CollectionPage>;
  /** Creates from an input that passed the description's create schema; returns the new resource. */
  readonly create?: (input: unknown, context: Context) => unknown;
  /**
   * Per sub-collection segment (`refunds`), a page of it for one resource: `parent` is the
   * representation `read` or `list` answered.
   */
  readonly subCollections?: Readonly<
    Record<
      string,
      (
        parent: unknown,
        args: ListArguments,
        context: Context,
      ) => CollectionPage | Promise<CollectionPage>
    >
  >;
  /** A page of the resources matching criteria that passed the description's criteria schema. */
  readonly search?: (
    criteria: unknown,
    args: PageArguments,
    context: Context,
  ) => CollectionPage | Promise<CollectionPage>;
  /**
   * Per action name (`suspend`), performs it on one resource (an opt-in mutation) with a body
   * that passed the action's schema; returns the resource after it, changed or not.
   */
  readonly actions?: Readonly<
    Record<string, (id: string, input: unknown, context: Context) => unknown>
  >;
}

/** What a complex operation's resolver receives. */
export interface OperationCall {
  /** The operation's path parameters (`capture_id`), by name. */
  readonly params: Readonly<Record<string, string>>;
  /**
   * The body (POST operations) or the query parameters (computed resources), after the
   * description's schema.
   */
  readonly input: unknown;
}

/** Runs one complex operation; returns its answer (the created resource, or the result). */
export type OperationResolver<Context> = (call: OperationCall, context: Context) => unknown;
