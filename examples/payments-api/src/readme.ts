/**
 * @module The example's documentation, until it has an API description: this README, served
 * as `text/markdown` (RFC 7763) and linked from every OPTIONS answer with `rel="help"`.
 */
import { readFileSync } from 'node:fs';
import type { Request, Response } from 'express';

/** Where the README is served; the `Link: <…>; rel="help"` target of every OPTIONS answer. */
export const README_PATH = '/readme';

const readme = readFileSync(new URL('../README.md', import.meta.url));

export function sendReadme(_req: Request, res: Response): void {
  res.type('text/markdown; charset=utf-8');
  res.send(readme);
}
