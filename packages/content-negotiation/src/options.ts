/**
 * @module The options of `contentNegotiation()`, their defaults, and their checks.
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  invalidOption,
  positiveIntegerOption,
} from '@resourceful/option-checks';

export interface CompressionOptions {
  /**
   * Smallest body compressed, in bytes. The spec asks for `Content-Encoding` "on all responses",
   * so every body is compressed when the client accepts a coding.
   * @default 0
   */
  threshold?: number;
  /** zlib compression level for gzip and deflate, -1 (zlib's default) to 9. @default -1 */
  level?: number;
}

export interface ContentNegotiationOptions {
  /** Offer `application/xml` and `text/xml`. @default true */
  xml?: boolean;
  /**
   * Offer JSONP (`text/javascript`, GET and HEAD, `?callback=`). Off by default: a JSONP
   * answer can be read by any web page, whatever CORS says.
   * @default false
   */
  jsonp?: boolean;
  /**
   * The languages the service has, as BCP 47 tags; the first is the default. Without it no
   * language is negotiated and `Content-Language` is never sent.
   */
  languages?: readonly string[];
  /** Compress answers through the `compression` package, or `false` to leave it out. @default { threshold: 0 } */
  compression?: CompressionOptions | false;
  /** Largest request body this middleware reads (inflated, decoded), in bytes. @default 102400 */
  maxBodyBytes?: number;
}

export const CONTENT_NEGOTIATION_DEFAULTS = Object.freeze({
  xml: true,
  jsonp: false,
  threshold: 0,
  level: -1,
  maxBodyBytes: 100 * 1024,
});

export interface ResolvedOptions {
  readonly xml: boolean;
  readonly jsonp: boolean;
  readonly languages: readonly string[] | undefined;
  readonly compression: { readonly threshold: number; readonly level: number } | false;
  readonly maxBodyBytes: number;
}

const FACTORY = 'contentNegotiation';
const LANGUAGE_TAG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;

export function resolveOptions(options: ContentNegotiationOptions): ResolvedOptions {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, [
    'xml',
    'jsonp',
    'languages',
    'compression',
    'maxBodyBytes',
  ]);
  const xml = booleanOption(FACTORY, 'xml', options.xml, CONTENT_NEGOTIATION_DEFAULTS.xml);
  const jsonp = booleanOption(FACTORY, 'jsonp', options.jsonp, CONTENT_NEGOTIATION_DEFAULTS.jsonp);
  const { languages } = options;
  if (languages !== undefined) {
    if (!Array.isArray(languages) || languages.length === 0) {
      invalidOption(FACTORY, 'languages', 'a non-empty array of language tags', languages);
    }
    const seen = new Set<string>();
    for (const tag of languages) {
      if (typeof tag !== 'string' || !LANGUAGE_TAG.test(tag)) {
        invalidOption(FACTORY, 'languages', 'language tags such as "en" or "fr-CA"', tag);
      }
      // Tags compare case-insensitively (RFC 5646 §2.1.1): a repeat is a mistake in the list.
      if (seen.has(tag.toLowerCase())) {
        invalidOption(FACTORY, 'languages', 'distinct language tags', tag);
      }
      seen.add(tag.toLowerCase());
    }
  }
  const maxBodyBytes = positiveIntegerOption(
    FACTORY,
    'maxBodyBytes',
    options.maxBodyBytes,
    CONTENT_NEGOTIATION_DEFAULTS.maxBodyBytes,
  );
  const compression: ResolvedOptions['compression'] =
    options.compression === false
      ? false
      : resolveCompression(FACTORY, 'compression', options.compression);
  return {
    xml,
    jsonp,
    languages: languages === undefined ? undefined : [...languages],
    compression,
    maxBodyBytes,
  };
}

/**
 * `compression`'s options with their defaults, checked: `contentNegotiation()`'s `compression`
 * (`within` `"compression"`, which may also be `false`), or `negotiatedCompression()`'s own
 * options (`within` `undefined`).
 */
export function resolveCompression(
  factory: string,
  within: string | undefined,
  options: unknown,
): { readonly threshold: number; readonly level: number } {
  // Only `undefined` means "the defaults": `null` is a mistake to name, as for every option.
  const given: unknown = options === undefined ? {} : options;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    if (within === undefined) assertOptionsObject(factory, given);
    else invalidOption(factory, within, 'false or an object { threshold?, level? }', given);
  }
  // Inside `compression`, an unknown key is named by its path (`compression.thresold`).
  assertKnownOptions(factory, given, ['threshold', 'level'], within);
  const {
    threshold = CONTENT_NEGOTIATION_DEFAULTS.threshold,
    level = CONTENT_NEGOTIATION_DEFAULTS.level,
  } = given as CompressionOptions;
  const prefix = within === undefined ? '' : `${within}.`;
  if (!Number.isSafeInteger(threshold) || threshold < 0) {
    invalidOption(factory, `${prefix}threshold`, 'a byte count (an integer ≥ 0)', threshold);
  }
  if (!Number.isInteger(level) || level < -1 || level > 9) {
    invalidOption(factory, `${prefix}level`, 'an integer from -1 to 9', level);
  }
  return { threshold, level };
}
