/**
 * @module The shape of a JSON Patch document (RFC 6902 §4): an array of operations, each with a
 * known `op`, a JSON Pointer `path`, `from` for move/copy and `value` for add/replace/test.
 * Errors name the operation index in `target`: `[2]`, `[2].path`.
 */
import { ApiError } from '@resourceful/error-envelope';
import { callOptions, limitOption } from './call-options.js';
import { FORBIDDEN_SEGMENTS, isPrefixOf, parsePointer } from './json-pointer.js';
import { checkJsonValue, DEFAULT_MAX_DEPTH } from './value-checks.js';

/** Most operations in one JSON Patch unless told otherwise. */
export const MAX_OPERATIONS = 100;

/** One RFC 6902 operation. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export type JsonPatchOp = JsonPatchOperation['op'];

/** An operation with its pointers parsed (`fromSegments` is empty unless move/copy). */
export interface ParsedOperation {
  readonly operation: JsonPatchOperation;
  readonly op: JsonPatchOp;
  readonly pathSegments: readonly string[];
  readonly fromSegments: readonly string[];
}

export interface ValidateOperationsOptions {
  /** @default 100 */
  maxOperations?: number;
  /** Deepest nesting of a `value`. @default 32 */
  maxDepth?: number;
}

const OPS: ReadonlySet<string> = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

function invalid(message: string, target: string, code: string): ApiError {
  return ApiError.invalidRequest(message, { target, innererror: { code } });
}

function pointer(value: unknown, target: string): string[] {
  if (typeof value !== 'string') {
    throw invalid('The member must be a JSON Pointer string.', target, 'INVALID_POINTER');
  }
  const segments = parsePointer(value);
  if (segments === undefined) {
    throw invalid(
      'The member is not a JSON Pointer: it must be "" or start with "/", and "~" must be followed by 0 or 1.',
      target,
      'INVALID_POINTER',
    );
  }
  const forbidden = segments.find((segment) => FORBIDDEN_SEGMENTS.has(segment));
  if (forbidden !== undefined) {
    throw invalid(
      `The path segment "${forbidden}" is not allowed.`,
      target,
      'FORBIDDEN_PATH_SEGMENT',
    );
  }
  return segments;
}

/**
 * Validates a JSON Patch document and returns its operations, keeping only the members each
 * operation defines (others are ignored, RFC 6902 §4).
 * @throws ApiError 400 `INVALID_REQUEST` (target `[i]`, `[i].op`, `[i].path`, `[i].from`,
 *   `[i].value`), 413 `PAYLOAD_TOO_LARGE` for too many operations
 */
export function validateOperations(
  patch: unknown,
  options?: ValidateOperationsOptions,
): ParsedOperation[] {
  const fn = 'validateOperations';
  const given = callOptions(fn, options, ['maxOperations', 'maxDepth']);
  const maxOperations = limitOption(fn, 'maxOperations', given.maxOperations, MAX_OPERATIONS);
  const maxDepth = limitOption(fn, 'maxDepth', given.maxDepth, DEFAULT_MAX_DEPTH);
  if (!Array.isArray(patch)) {
    throw ApiError.invalidRequest('A JSON Patch document must be an array of operations.', {
      innererror: { code: 'PATCH_NOT_AN_ARRAY' },
    });
  }
  if (patch.length > maxOperations) {
    throw ApiError.payloadTooLarge(
      `A patch may hold at most ${maxOperations} operations; this one has ${patch.length}.`,
      { innererror: { code: 'TOO_MANY_OPERATIONS' } },
    );
  }
  return patch.map((raw: unknown, index): ParsedOperation => {
    const at = `[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw invalid('Each operation must be an object.', at, 'OPERATION_NOT_AN_OBJECT');
    }
    const member = raw as Record<string, unknown>;
    const op = member.op;
    if (typeof op !== 'string' || !OPS.has(op)) {
      throw invalid(
        'The operation "op" must be one of add, remove, replace, move, copy, test.',
        `${at}.op`,
        'INVALID_OP',
      );
    }
    const pathSegments = pointer(member.path, `${at}.path`);
    const path = member.path as string;
    switch (op as JsonPatchOp) {
      case 'remove':
        if (pathSegments.length === 0) {
          throw invalid('The whole document cannot be removed.', `${at}.path`, 'REMOVE_ROOT');
        }
        return { operation: { op: 'remove', path }, op: 'remove', pathSegments, fromSegments: [] };
      case 'move':
      case 'copy': {
        const fromSegments = pointer(member.from, `${at}.from`);
        const from = member.from as string;
        // RFC 6902 §4.4: a location cannot be moved into one of its children.
        if (
          op === 'move' &&
          fromSegments.length < pathSegments.length &&
          isPrefixOf(fromSegments, pathSegments)
        ) {
          throw invalid(
            'A location cannot be moved into one of its own children.',
            `${at}.from`,
            'MOVE_INTO_CHILD',
          );
        }
        return {
          operation: { op: op as 'move' | 'copy', from, path },
          op: op as 'move' | 'copy',
          pathSegments,
          fromSegments,
        };
      }
      default: {
        if (!Object.hasOwn(member, 'value')) {
          throw invalid(`The "${op}" operation requires "value".`, `${at}.value`, 'VALUE_REQUIRED');
        }
        checkJsonValue(member.value, maxDepth, `${at}.value`);
        const kind = op as 'add' | 'replace' | 'test';
        return {
          operation: { op: kind, path, value: member.value },
          op: kind,
          pathSegments,
          fromSegments: [],
        };
      }
    }
  });
}
