/**
 * @module Reads a document written by content-negotiation's XML mapping back into the JSON value
 * it mirrors, so tests can compare an XML answer with the JSON one. A reader independent of the
 * writer: fast-xml-parser, in its order-preserving mode, with every value kept as text.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  // Numeric character references (`&#x1F600;`) are decoded too.
  htmlEntities: true,
  // The parser renames tags such as `toString` to keep them off prototypes; a marker it cannot
  // meet in a tag name keeps the original, which the object below stores as an own property.
  onDangerousProperty: (name: string) => `${RENAMED}${name}`,
});

const RENAMED = '\u0000';

function rawTagOf(node: OrderedNode): string {
  const tag = Object.keys(node).find((key) => key !== ':@');
  if (tag === undefined) throw new Error('node without a tag');
  return tag;
}

function tagOf(node: OrderedNode): string {
  const tag = rawTagOf(node);
  return tag.startsWith(RENAMED) ? tag.slice(RENAMED.length) : tag;
}

function textOf(children: OrderedNode[]): string {
  return children.map((child) => String(child['#text'] ?? '')).join('');
}

function mirrorValue(node: OrderedNode): unknown {
  const attributes = node[':@'] ?? {};
  const children = node[rawTagOf(node)] as OrderedNode[];
  const elements = children.filter((child) => tagOf(child) !== '#text');
  switch (attributes.type) {
    case 'null':
      return null;
    case 'number':
      return Number(textOf(children));
    case 'boolean':
      return textOf(children) === 'true';
    case 'object':
      return {};
    case 'array':
      return elements.map(mirrorValue);
  }
  if (elements.length === 0) {
    const text = textOf(children);
    return attributes.encoding === 'json' ? (JSON.parse(text) as string) : text;
  }
  const object: Record<string, unknown> = {};
  for (const element of elements) {
    const elementAttributes = element[':@'] ?? {};
    const name =
      elementAttributes.name === undefined
        ? tagOf(element)
        : elementAttributes['name-encoding'] === 'json'
          ? (JSON.parse(elementAttributes.name) as string)
          : elementAttributes.name;
    if (elementAttributes.array === 'empty') {
      object[name] = [];
    } else if (elementAttributes.array === 'true') {
      const list = Object.hasOwn(object, name) ? (object[name] as unknown[]) : [];
      list.push(mirrorValue(element));
      Object.defineProperty(object, name, {
        value: list,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      Object.defineProperty(object, name, {
        value: mirrorValue(element),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return object;
}

/**
 * The JSON value an XML answer mirrors. Throws when the text is not well-formed XML or has no
 * single root element.
 */
export function parseXmlMirror(xml: string): unknown {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg}`);
  const nodes = (parser.parse(xml) as OrderedNode[]).filter((node) => !tagOf(node).startsWith('?'));
  if (nodes.length !== 1 || nodes[0] === undefined) throw new Error('expected one root element');
  return mirrorValue(nodes[0]);
}
