import { describe, expect, it } from 'vitest';
import { helpLinkOption, isOptionError } from '../src/index.js';

describe('helpLinkOption', () => {
  it('gives no link when help is absent or false', () => {
    expect(helpLinkOption('f', undefined)).toBeUndefined();
    expect(helpLinkOption('f', false)).toBeUndefined();
  });

  it('gives one rel="help" link for a URL, absolute or relative', () => {
    expect(helpLinkOption('f', 'https://api.example.com/docs')).toBe(
      '<https://api.example.com/docs>; rel="help"',
    );
    expect(helpLinkOption('f', '/v1/docs')).toBe('</v1/docs>; rel="help"');
  });

  it('gives one link per URL of a list, in its order', () => {
    expect(helpLinkOption('f', ['/v1/docs', '/v1/openapi.json'])).toBe(
      '</v1/docs>; rel="help", </v1/openapi.json>; rel="help"',
    );
  });

  it.each([
    ['a value that is not a string', 5],
    ['an empty string', ''],
    ['brackets, which would end the link target', 'a <b>'],
    ['a quote', '/docs"'],
    ['white space', '/my docs'],
    ['a line break, which would split the header', '/docs\r\nX-Injected: 1'],
    ['characters outside ASCII, which a header cannot carry unencoded', '/dokumentation/über'],
    ['a reference URL cannot parse', 'http://[bad'],
  ])('refuses %s, naming the factory and the option', (_, help) => {
    let thrown: unknown;
    try {
      helpLinkOption('allowedMethods', help);
    } catch (error) {
      thrown = error;
    }
    expect(isOptionError(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(/^allowedMethods: "help" must be a URL/);
  });

  it('refuses an empty list, and a list with one bad URL', () => {
    expect(() => helpLinkOption('f', [])).toThrow(/"help" must be at least one URL, or false/);
    expect(() => helpLinkOption('f', ['/docs', 'a <b>'])).toThrow(/"help" must be a URL/);
  });
});
