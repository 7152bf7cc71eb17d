/**
 * @module Every package supports Express 4 and Express 5; suites run once under each.
 */
import express5 from 'express';
import express4 from 'express4';
import { describe } from 'vitest';

export type ExpressModule = typeof express5;

export interface ExpressVersion {
  /** `express 4` or `express 5`, used in test titles. */
  readonly name: string;
  readonly major: 4 | 5;
  readonly express: ExpressModule;
}

export const expressVersions: readonly ExpressVersion[] = [
  { name: 'express 4', major: 4, express: express4 as ExpressModule },
  { name: 'express 5', major: 5, express: express5 },
];

/** `describe` once per Express major; the title gets the version appended. */
export function describeEachExpress(
  title: string,
  suite: (express: ExpressModule, version: ExpressVersion) => void,
): void {
  for (const version of expressVersions) {
    describe(`${title} (${version.name})`, () => suite(version.express, version));
  }
}
