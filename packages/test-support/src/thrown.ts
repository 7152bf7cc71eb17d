/** @module What a call threw, for assertions on an error's `code` and `option`. */

/** Calls `build` and returns what it threw; fails the test when it threw nothing. */
export function thrownBy(build: () => unknown): Error & { code?: string; option?: string } {
  try {
    build();
  } catch (error) {
    return error as Error & { code?: string; option?: string };
  }
  throw new Error('expected an error, nothing was thrown');
}
