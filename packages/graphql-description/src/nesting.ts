/**
 * @module The nesting bound checked on a GraphQL document's source before graphql-js parses it.
 * graphql-js parses by recursive descent: every `{` (selection set, input object), `(`
 * (arguments, variable definitions) and `[` (list value or type) is a deeper call, so a
 * document nested a few thousand levels exhausts the call stack (a `RangeError`) before the
 * parser's token bound (`maxTokens`) stops it, and whether it does depends on how warm the
 * parser's code is. One linear pass over the source, counting the brackets open at once outside
 * strings and comments, refuses such a document the same way every time, before any recursion.
 */
import { invalidOption } from '@resourceful/option-checks';
import { GraphQLError } from 'graphql';

/** Brackets a document may have open at once when `maxNesting` is not given. */
export const DEFAULT_MAX_NESTING = 64;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HASH = 0x23;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Whether `source` has `"""` at `index`. */
function tripleQuote(source: string, index: number): boolean {
  return (
    source.charCodeAt(index) === QUOTE &&
    source.charCodeAt(index + 1) === QUOTE &&
    source.charCodeAt(index + 2) === QUOTE
  );
}

/**
 * The deepest the brackets `{`, `(` and `[` of a GraphQL document nest, read as graphql-js's
 * lexer reads the source (GraphQL spec §2.1): `#` comments to the end of the line, strings
 * (`"…"` with `\` escapes, ending at a line end as the lexer refuses them there) and block
 * strings (`"""…"""`, `\"""` escaped) hold no brackets. The pass stops as soon as the depth
 * exceeds `stopAbove`, so its answer is then `stopAbove + 1`.
 */
export function nestingDepth(source: string, stopAbove: number = Number.POSITIVE_INFINITY): number {
  if (typeof source !== 'string') {
    invalidOption('nestingDepth', 'source', 'the text of a GraphQL document', source);
  }
  if (typeof stopAbove !== 'number' || Number.isNaN(stopAbove)) {
    invalidOption('nestingDepth', 'stopAbove', 'a number', stopAbove);
  }
  return depthOf(source, stopAbove);
}

/** `nestingDepth` without the argument checks, for the endpoint's per-request use. */
export function depthOf(source: string, stopAbove: number): number {
  let depth = 0;
  let deepest = 0;
  const length = source.length;
  let index = 0;
  while (index < length) {
    const code = source.charCodeAt(index);
    if (code === OPEN_BRACE || code === OPEN_PAREN || code === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
      index++;
    } else if (code === CLOSE_BRACE || code === CLOSE_PAREN || code === CLOSE_BRACKET) {
      // An unbalanced closing bracket is the parser's syntax error to report, not a depth.
      if (depth > 0) depth--;
      index++;
    } else if (code === HASH) {
      while (
        index < length &&
        source.charCodeAt(index) !== LINE_FEED &&
        source.charCodeAt(index) !== CARRIAGE_RETURN
      ) {
        index++;
      }
    } else if (code === QUOTE && tripleQuote(source, index)) {
      index += 3;
      while (index < length && !tripleQuote(source, index)) {
        // `\"""` is an escaped triple quote inside a block string.
        index += source.charCodeAt(index) === BACKSLASH && tripleQuote(source, index + 1) ? 4 : 1;
      }
      index += 3;
    } else if (code === QUOTE) {
      index++;
      while (index < length) {
        const inner = source.charCodeAt(index);
        if (inner === QUOTE || inner === LINE_FEED || inner === CARRIAGE_RETURN) break;
        index += inner === BACKSLASH ? 2 : 1;
      }
      index++;
    } else {
      index++;
    }
  }
  return deepest;
}

/** The GraphQL error of a document nested deeper than `maxNesting` (graphql-http: a 400). */
export function tooNested(maxNesting: number): GraphQLError {
  return new GraphQLError(
    `The document nests brackets ({, ( and [) more than ${maxNesting} deep; at most ${maxNesting} are served.`,
    { extensions: { code: 'QUERY_TOO_NESTED' } },
  );
}

/**
 * The GraphQL error standing for an exhausted call stack in graphql-js (a `RangeError` while
 * parsing or validating): its message names the engine, not the request, and never reaches
 * the client.
 */
export function tooComplex(): GraphQLError {
  return new GraphQLError('The document is too complex to be served.', {
    extensions: { code: 'QUERY_TOO_COMPLEX' },
  });
}
