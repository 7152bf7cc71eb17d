/**
 * @module kubectl's filter flags are Go regular expressions (RE2 syntax). Most of that syntax
 * reads the same in JavaScript, but not all of it: `\z`, `[[:digit:]]`, `\pN` or `\Q…\E` compile
 * in JavaScript as something else (a literal `z`, a class of `[:digt`, a literal `pN`), so a
 * `--reject-paths` list kubectl enforces would quietly reject nothing. The differences are
 * translated here, at construction; Go syntax with no translation, and escapes Go itself refuses,
 * throw a `SyntaxError` naming the construct.
 * @see https://github.com/google/re2/wiki/Syntax
 */

/** Go's ASCII classes (`[[:alpha:]]`), as the contents of a JavaScript character class. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '\\x21-\\x7E',
  lower: 'a-z',
  print: '\\x20-\\x7E',
  punct: '\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Go's `\s` (no `\v`, no Unicode spaces, unlike JavaScript's). */
const GO_SPACE = '\\t\\n\\f\\r ';
/** Characters JavaScript needs escaped to read literally, in and out of a class. */
const JS_SYNTAX = new Set([...'^$\\.*+?()[]{}|/-']);
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\\x07',
  f: '\\f',
  t: '\\t',
  n: '\\n',
  r: '\\r',
  v: '\\v',
};
/** Unicode general categories (`\pL`, `\p{Lu}`); any other name is a script (`\p{Greek}`). */
const GENERAL_CATEGORY = /^(?:[CLMNPSZ][a-z]?|Any)$/;

export interface TranslatedRegExp {
  readonly source: string;
  /** The translation uses `\p{…}` or `\u{…}`, so it needs JavaScript's `u` flag. */
  readonly unicode: boolean;
}

/** `char` read literally, in a class or out (`\-` is refused outside one under the `u` flag). */
function literal(char: string, inClass: boolean): string {
  const code = char.codePointAt(0) ?? 0;
  if (char === '-') return inClass ? '\\-' : '-';
  if (JS_SYNTAX.has(char)) return `\\${char}`;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  return char;
}

function codePointEscape(code: number, state: { unicode: boolean }): string {
  if (code > 0x10ffff) throw new SyntaxError(`\\x{${code.toString(16)}} is out of range`);
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  state.unicode = true;
  return `\\u{${code.toString(16)}}`;
}

/**
 * Translates Go's `source` (without its leading `(?flags)`, given as `dotAll`) into JavaScript.
 * Throws a SyntaxError naming what it cannot translate or what Go refuses.
 */
export function translateGoRegExp(source: string, dotAll: boolean): TranslatedRegExp {
  const state = { unicode: false };
  let out = '';
  let i = 0;
  let inClass = false;

  /** One escape at `source[i] === '\\'`; returns the JavaScript text and moves `i` past it. */
  const readEscape = (): string => {
    const next = source[i + 1];
    if (next === undefined) throw new SyntaxError('a trailing "\\" escapes nothing');
    i += 2;
    if (next === 'Q') {
      const end = source.indexOf('\\E', i);
      const quoted = source.slice(i, end === -1 ? source.length : end);
      i = end === -1 ? source.length : end + 2;
      return [...quoted].map((quotedChar) => literal(quotedChar, inClass)).join('');
    }
    if (next in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[next] as string;
    if (next === 'd' || next === 'D' || next === 'w' || next === 'W') return `\\${next}`;
    if (next === 's') return inClass ? GO_SPACE : `[${GO_SPACE}]`;
    if (next === 'S') {
      if (inClass) throw new SyntaxError('\\S inside a character class has no translation');
      return `[^${GO_SPACE}]`;
    }
    if (!inClass && (next === 'b' || next === 'B')) return `\\${next}`;
    if (!inClass && next === 'A') return '(?<![\\s\\S])';
    if (!inClass && next === 'z') return '(?![\\s\\S])';
    if (next === 'p' || next === 'P') {
      let name = source[i] ?? '';
      if (name === '{') {
        const end = source.indexOf('}', i);
        if (end === -1) throw new SyntaxError(`\\${next}{ is not closed`);
        name = source.slice(i + 1, end);
        i = end + 1;
      } else {
        i += 1;
      }
      let negated = next === 'P';
      if (name.startsWith('^')) {
        negated = !negated;
        name = name.slice(1);
      }
      if (!/^[A-Za-z_]+$/.test(name)) throw new SyntaxError(`\\${next}${name} names no class`);
      state.unicode = true;
      const property = GENERAL_CATEGORY.test(name) ? name : `Script=${name}`;
      return `\\${negated ? 'P' : 'p'}{${property}}`;
    }
    if (next === 'x') {
      const braced = source[i] === '{';
      const match = braced
        ? /^\{([0-9A-Fa-f]+)\}/.exec(source.slice(i))
        : /^[0-9A-Fa-f]{2}/.exec(source.slice(i));
      if (match === null) throw new SyntaxError('\\x needs two hex digits or {hex}');
      i += match[0].length;
      return codePointEscape(Number.parseInt(braced ? (match[1] as string) : match[0], 16), state);
    }
    if (/[0-7]/.test(next)) {
      // Go: `\0` and `\1`–`\7` followed by an octal digit are octal; `\1` alone would be a
      // backreference, which Go does not have.
      const digits = /^[0-7]{0,2}/.exec(source.slice(i))?.[0] ?? '';
      if (next !== '0' && digits === '') {
        throw new SyntaxError(`\\${next} is a backreference, which Go does not have`);
      }
      i += digits.length;
      return codePointEscape(Number.parseInt(next + digits, 8), state);
    }
    if (/[!-/:-@[-`{-~]/.test(next)) return literal(next, inClass);
    throw new SyntaxError(`\\${next} is not an escape Go knows`);
  };

  while (i < source.length) {
    const char = source[i] as string;
    if (char === '\\') {
      out += readEscape();
      continue;
    }
    if (inClass) {
      if (char === ']') {
        inClass = false;
        out += ']';
        i += 1;
        continue;
      }
      if (char === '[' && source[i + 1] === ':') {
        const end = source.indexOf(':]', i + 2);
        const name = end === -1 ? undefined : source.slice(i + 2, end);
        if (name !== undefined && /^\^?[a-z]+$/.test(name)) {
          const ranges = POSIX_CLASSES[name];
          if (ranges === undefined) {
            throw new SyntaxError(`[:${name}:] has no translation (Go's negated or unknown class)`);
          }
          out += ranges;
          i = end + 2;
          continue;
        }
      }
      out += char === '[' ? '\\[' : char;
      i += 1;
      continue;
    }
    if (char === '[') {
      inClass = true;
      out += '[';
      i += 1;
      if (source[i] === '^') {
        out += '^';
        i += 1;
      }
      // Go reads a `]` right after `[` or `[^` as a literal; JavaScript as the class's end.
      if (source[i] === ']') {
        out += '\\]';
        i += 1;
      }
      continue;
    }
    if (char === '.') {
      // Go's `.` is anything but `\n`; JavaScript's also leaves out `\r`, U+2028 and U+2029.
      out += dotAll ? '[\\s\\S]' : '[^\\n]';
      i += 1;
      continue;
    }
    if (char === '(' && source.startsWith('(?P<', i)) {
      out += '(?<';
      i += 4;
      continue;
    }
    out += char === ']' ? '\\]' : char;
    i += 1;
  }
  if (inClass) throw new SyntaxError('a character class is not closed');
  return { source: out, unicode: state.unicode };
}
