/**
 * @module What every list of the example shares: the public base URL for links, and the query
 * parameters other middleware reads (collection-pagination refuses unknown parameters).
 */
import type { PaginateOptions } from '@resourceful/collection-pagination';

export type ListDefaults = Pick<PaginateOptions<unknown>, 'allowedParameters' | 'publicBaseUrl'>;

export function listDefaults(publicBaseUrl: string | undefined): ListDefaults {
  return {
    // `Prefer` may arrive as a query parameter (spec: headers may be sent as parameters).
    allowedParameters: ['Prefer'],
    ...(publicBaseUrl === undefined ? {} : { publicBaseUrl }),
  };
}
