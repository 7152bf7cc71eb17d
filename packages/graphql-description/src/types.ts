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
}
