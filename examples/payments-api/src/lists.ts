/**
 * @module What every list of the example shares: the public base URL for links. Headers sent
 * as query parameters (`?Prefer=`) never reach the list parsers: `queryHeaders()` takes them out.
 */
import type { PaginateOptions } from '@resourceful/collection-pagination';

export type ListDefaults = Pick<PaginateOptions<unknown>, 'allowedParameters' | 'publicBaseUrl'>;

export function listDefaults(publicBaseUrl: string | undefined): ListDefaults {
  return publicBaseUrl === undefined ? {} : { publicBaseUrl };
}
