/**
 * @module What every list of the example shares: the public base URL for links, and the query
 * parameters content negotiation reads. Headers sent as query parameters (`?Prefer=`) never
 * reach the list parsers: `queryHeaders()` takes them out.
 */
import type { PaginateOptions } from '@resourceful/collection-pagination';
import { ACCEPT_QUERY_PARAMETER, JSONP_CALLBACK_PARAMETER } from '@resourceful/content-negotiation';

export type ListDefaults = Pick<
  PaginateOptions<unknown>,
  'allowedParameters' | 'publicBaseUrl' | 'continuation'
>;

/**
 * `?accept=xml` and JSONP's `?callback=` are content negotiation's: a list accepts them (instead
 * of refusing them as unknown parameters) and keeps them in its links, so the next page comes in
 * the format the client asked for.
 */
const NEGOTIATION_PARAMETERS = [ACCEPT_QUERY_PARAMETER, JSONP_CALLBACK_PARAMETER];

export function listDefaults(publicBaseUrl: string | undefined): ListDefaults {
  const allowedParameters = NEGOTIATION_PARAMETERS;
  return publicBaseUrl === undefined ? { allowedParameters } : { allowedParameters, publicBaseUrl };
}

/**
 * The defaults of a list whose store pages by keyset (cards, customers, webhooks): with secrets,
 * a request without a position gets `next` links carrying a signed continuation token
 * (`page_token`), which every instance configured with the same secrets accepts.
 */
export function keysetListDefaults(
  lists: ListDefaults,
  pageTokenSecrets: readonly string[] | undefined,
): ListDefaults {
  if (pageTokenSecrets === undefined || pageTokenSecrets.length === 0) return lists;
  return { ...lists, continuation: { secrets: pageTokenSecrets } };
}
