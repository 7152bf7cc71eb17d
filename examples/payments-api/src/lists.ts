/**
 * @module What every list of the example shares: the public base URL for links. Headers sent
 * as query parameters (`?Prefer=`) never reach the list parsers: `queryHeaders()` takes them out.
 */
import type { PaginateOptions } from '@resourceful/collection-pagination';

export type ListDefaults = Pick<
  PaginateOptions<unknown>,
  'allowedParameters' | 'publicBaseUrl' | 'continuation'
>;

export function listDefaults(publicBaseUrl: string | undefined): ListDefaults {
  return publicBaseUrl === undefined ? {} : { publicBaseUrl };
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
