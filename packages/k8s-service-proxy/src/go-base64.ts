/**
 * @module Base64 checked as kubectl checks a kubeconfig's `*-data` fields (Go's
 * `encoding/base64.StdEncoding`: the standard alphabet, `=` padding required, CR and LF skipped,
 * nothing else). Node's `Buffer.from(text, 'base64')` skips characters it does not know and
 * accepts missing padding, so a broken value would load as a broken certificate and fail every
 * request with a TLS error; checked here, it fails at start naming the field, as kubectl does.
 * Hand-written: no maintained package reports where the input breaks Go's rules.
 */

const PAD = 0x3d;

function inAlphabet(byte: number): boolean {
  return (
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    byte === 0x2b || // +
    byte === 0x2f // /
  );
}

function isLineBreak(byte: number | undefined): boolean {
  return byte === 0x0a || byte === 0x0d;
}

/**
 * `undefined` when Go would decode `text`; otherwise the byte offset Go's `CorruptInputError`
 * reports ("illegal base64 data at input byte N"), found the way its `decodeQuantum` walks.
 */
export function base64ErrorOffset(text: string): number | undefined {
  const bytes = Buffer.from(text, 'utf8');
  const end = bytes.length;
  let at = 0;
  for (;;) {
    for (let seen = 0; seen < 4; seen += 1) {
      if (at === end) return seen === 0 ? undefined : at - seen;
      const byte = bytes[at] as number;
      at += 1;
      if (inAlphabet(byte)) continue;
      if (isLineBreak(byte)) {
        seen -= 1;
        continue;
      }
      if (byte !== PAD || seen < 2) return at - 1;
      if (seen === 2) {
        // "==" closes a two-character quantum: the first `=` is read.
        while (at < end && isLineBreak(bytes[at])) at += 1;
        if (at === end) return end;
        if (bytes[at] !== PAD) return at - 1;
        at += 1;
      }
      while (at < end && isLineBreak(bytes[at])) at += 1;
      return at < end ? at : undefined;
    }
  }
}

/** Decodes `text` after `base64ErrorOffset` found it valid. */
export function decodeBase64(text: string): Buffer {
  return Buffer.from(text, 'base64');
}
