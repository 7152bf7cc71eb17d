/**
 * @module The XML mirror of a JSON value. The document is built by fast-xml-builder (text and
 * attributes escaped by it); this module only decides the shape, so that a client can read the
 * XML or the JSON and get the same data back (see the README's mapping).
 */
import XMLBuilderExport from 'fast-xml-builder';

// fast-xml-builder's CommonJS build sets `exports.default` without `__esModule`, so our CommonJS
// build receives the exports object where the ESM one receives the class.
const XMLBuilder =
  (XMLBuilderExport as unknown as { default?: typeof XMLBuilderExport }).default ??
  XMLBuilderExport;

/** The root element of every document. */
export const XML_ROOT_ELEMENT = 'response';

/**
 * Element names written as such: ASCII letters, digits, `_`, `.`, `-`, not starting with a digit,
 * `.` or `-`, nor with `xml` (reserved, XML 1.0 §2.3). Any other property name is written as
 * `<property name="…">`, so a name a client chose can never break the document.
 */
const ELEMENT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

/**
 * Whether a string holds a character XML 1.0 §2.2 cannot carry at all, not even as a character
 * reference: C0 controls but tab, LF and CR, U+FFFE, U+FFFF and unpaired surrogates.
 */
function hasNonXmlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20) {
      if (code !== 0x09 && code !== 0x0a && code !== 0x0d) return true;
    } else if (code >= 0xd800) {
      if (code === 0xfffe || code === 0xffff) return true;
      if (code <= 0xdbff) {
        const next = text.charCodeAt(i + 1);
        if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
        i++;
      } else if (code <= 0xdfff) return true;
    }
  }
  return false;
}

type XmlNode = string | { [key: string]: XmlNode | XmlNode[] };

/**
 * The deepest element written (the root is the first). XML parsers bound nesting: fast-xml-parser
 * refuses more than 100 levels by default (`maxNestedTags`), libxml2 (lxml, PHP, Nokogiri,
 * xmllint) more than 256 unless a client turns on `XML_PARSE_HUGE`. An object or array whose
 * elements would go deeper is written as its JSON text, marked as an unwritable string is, so
 * every client reads the whole value.
 */
const MAX_ELEMENT_DEPTH = 100;

/** fast-xml-builder 1.3 option not in its types yet. */
const BUILDER_OPTIONS = {
  // Callbacks would receive a path string built for every node; none is used, so none is built.
  jPath: false,
} as Record<string, unknown>;

const builder = new XMLBuilder({
  ...BUILDER_OPTIONS,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  suppressEmptyNode: false,
  suppressBooleanAttributes: false,
  processEntities: true,
  format: false,
  // Nesting is bounded by MAX_ELEMENT_DEPTH; the builder's own guard stays above ours.
  maxNestedTags: 1024,
});

function isElementName(name: string): boolean {
  // `__proto__` is a valid XML name, but as an object key it would set the builder's prototype.
  return ELEMENT_NAME.test(name) && !/^xml/i.test(name) && name !== '__proto__';
}

type Attributes = Record<string, string> | undefined;

/** A node holding text, with the attributes given and one more. */
function node(attributes: Attributes, name: string, value: string, text?: string): XmlNode {
  const result: Record<string, string> = attributes === undefined ? {} : { ...attributes };
  result[name] = value;
  if (text !== undefined) result['#text'] = text;
  return result;
}

/**
 * A JSON text made only of XML characters: JSON escapes controls and lone surrogates but leaves
 * U+FFFE and U+FFFF as they are, which XML 1.0 §2.2 excludes.
 */
function xmlSafeJsonLiteral(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\uFFFE\uFFFF]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16)}`,
  );
}

function text(value: string, attributes: Attributes): XmlNode {
  // A string XML cannot carry is sent as its JSON string literal, marked, so it survives intact.
  if (hasNonXmlCharacter(value))
    return node(attributes, '@_encoding', 'json', xmlSafeJsonLiteral(value));
  return attributes === undefined ? value : { ...attributes, '#text': value };
}

/**
 * The element content of one JSON value (already normalised by a JSON round trip), for an
 * element `depth` levels deep (the root is 1).
 */
function content(value: unknown, depth: number, attributes: Record<string, string> = {}): XmlNode {
  if (value === null) return { ...attributes, '@_type': 'null' };
  if (typeof value === 'string') return text(value, attributes);
  if (typeof value === 'number')
    return { ...attributes, '@_type': 'number', '#text': String(value) };
  if (typeof value === 'boolean') {
    return { ...attributes, '@_type': 'boolean', '#text': String(value) };
  }
  if (depth >= MAX_ELEMENT_DEPTH && hasChildElements(value as object)) {
    return node(attributes, '@_encoding', 'json', xmlSafeJsonLiteral(value));
  }
  if (Array.isArray(value)) {
    // An array that is not a property's value (the root, an array inside an array).
    const items = value.map((item) => content(item, depth + 1, ARRAY_ITEM));
    const element: Record<string, XmlNode | XmlNode[]> =
      attributes === undefined ? {} : { ...attributes };
    element['@_type'] = 'array';
    if (items.length > 0) element.item = items;
    return element;
  }
  const element: Record<string, XmlNode | XmlNode[]> =
    attributes === undefined ? {} : { ...attributes };
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return node(attributes, '@_type', 'object');
  const renamed: XmlNode[] = [];
  for (const [name, child] of entries) {
    if (isElementName(name)) element[name] = property(child, undefined, depth + 1);
    else {
      // A name XML cannot carry in an attribute is its JSON literal, marked as the text is.
      const named = property(
        child,
        hasNonXmlCharacter(name)
          ? { '@_name': xmlSafeJsonLiteral(name), '@_name-encoding': 'json' }
          : { '@_name': name },
        depth + 1,
      );
      if (Array.isArray(named)) renamed.push(...named);
      else renamed.push(named);
    }
  }
  if (renamed.length > 0) {
    const existing = element.property;
    element.property =
      existing === undefined
        ? renamed
        : [...(Array.isArray(existing) ? existing : [existing]), ...renamed];
  }
  return element;
}

/** A property's value: an array becomes repeated elements of the property's name. */
const ARRAY_ITEM: Readonly<Record<string, string>> = Object.freeze({ '@_array': 'true' });

/** A property's element(s), `depth` levels deep. */
function property(value: unknown, attributes: Attributes, depth: number): XmlNode | XmlNode[] {
  if (!Array.isArray(value)) return content(value, depth, attributes);
  if (value.length === 0) return [node(attributes, '@_array', 'empty')];
  const item = attributes === undefined ? ARRAY_ITEM : { ...attributes, '@_array': 'true' };
  return value.map((entry) => content(entry, depth, item));
}

/** Whether an object or array is written with elements inside its own: it is not empty. */
function hasChildElements(value: object): boolean {
  return Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0;
}

/** Characters outside Latin-1 as character references (XML 1.0 §4.1), code point by code point. */
function toLatin1References(xml: string): string {
  return xml.replace(
    /[\u{100}-\u{10FFFF}]/gu,
    (character) => `&#x${character.codePointAt(0)?.toString(16).toUpperCase()};`,
  );
}

/**
 * XML parsers turn CR and CR LF into LF everywhere (XML 1.0 §2.11), and tab and LF into spaces
 * in attribute values (§3.3.3); written as character references they survive. The builder's
 * unformatted output holds such characters only inside values, and `"` only around attributes.
 */
function keepWhitespace(xml: string): string {
  return xml
    .replace(/\r/g, '&#xD;')
    .replace(/="([^"]*)"/g, (attribute) =>
      attribute.replace(/\n/g, '&#xA;').replace(/\t/g, '&#x9;'),
    );
}

export interface ToXmlOptions {
  /** Write only Latin-1 characters, the others as character references. @default false */
  latin1?: boolean;
}

/**
 * The XML document mirroring a JSON-serialisable value (as `JSON.stringify` sees it: `toJSON`
 * applied, `undefined` properties dropped).
 */
export function toXml(value: unknown, options: ToXmlOptions = {}): string {
  const json = JSON.stringify(value);
  const normalised: unknown = json === undefined ? null : JSON.parse(json);
  const body = builder.build({ [XML_ROOT_ELEMENT]: content(normalised, 1) }) as string;
  const encoding = options.latin1 === true ? 'ISO-8859-1' : 'UTF-8';
  const document = `<?xml version="1.0" encoding="${encoding}"?>\n${keepWhitespace(body)}`;
  return options.latin1 === true ? toLatin1References(document) : document;
}
