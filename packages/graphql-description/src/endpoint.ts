/**
 * @module `graphqlEndpoint`: GraphQL over HTTP with graphql-http's Express handler (POST with a
 * JSON body, GET with `?query=` for queries), the query limits, a token bound on the parser,
 * and the schema's SDL as text at `{mount}/schema.graphql`.
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import type { NextFunction, Request, Response } from 'express';
import { type GraphQLSchema, parse, printSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/express';
import { type QueryLimits, queryLimitRules } from './limits.js';

/** The context resolvers receive by default: the Express request, for links and credentials. */
export interface RequestContext extends Record<PropertyKey, unknown> {
  readonly req: Request;
}

export interface GraphqlEndpointOptions<Context extends Record<PropertyKey, unknown>> {
  readonly schema: GraphQLSchema;
  /** The resolvers' context for a request. @default (req) => ({ req }) */
  readonly context?: (req: Request) => Context;
  /** Depth and cost bounds. @default DEFAULT_QUERY_LIMITS */
  readonly limits?: QueryLimits;
  /** Tokens the parser reads before refusing a document (graphql-js `maxTokens`). @default 5000 */
  readonly maxTokens?: number;
}

/** The path, under the endpoint's mount, of the SDL. */
export const SDL_PATH = '/schema.graphql';

export function graphqlEndpoint<Context extends Record<PropertyKey, unknown> = RequestContext>(
  options: GraphqlEndpointOptions<Context>,
) {
  assertOptionsObject('graphqlEndpoint', options);
  assertKnownOptions('graphqlEndpoint', options, ['schema', 'context', 'limits', 'maxTokens']);
  const maxTokens = options.maxTokens ?? 5000;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'graphqlEndpoint',
      'maxTokens must be a positive integer.',
    );
  }
  const rules = queryLimitRules(options.limits);
  const sdl = printSchema(options.schema);
  const context = options.context ?? ((req: Request) => ({ req }) as unknown as Context);
  const handle = createHandler<Context>({
    schema: options.schema,
    context: (req) => context(req.raw),
    validationRules: (_req, _args, specified) => [...specified, ...rules],
    parse: (source) => parse(source, { maxTokens }),
  });

  return function graphqlEndpointMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (req.path === SDL_PATH) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        next();
        return;
      }
      res.type('text/plain; charset=utf-8').send(sdl);
      return;
    }
    if (req.path !== '/') {
      next();
      return;
    }
    // graphql-http answers every outcome itself (GraphQL over HTTP fixes those answers);
    // only a fault of the handler reaches the app's error pipeline.
    Promise.resolve(handle(req, res, next)).catch(next);
  };
}
