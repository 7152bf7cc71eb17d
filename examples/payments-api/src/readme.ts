/**
 * @module The example's README, served as `text/markdown` (RFC 7763) beside the API description
 * (`createApp({ helpUrl: README_PATH })` links it from every OPTIONS answer instead).
 */
import { readFileSync } from 'node:fs';
import type { Request, Response } from 'express';

/** Where the README is served. */
export const README_PATH = '/readme';

const readme = readFileSync(new URL('../README.md', import.meta.url));

export function sendReadme(_req: Request, res: Response): void {
  res.type('text/markdown; charset=utf-8');
  res.send(readme);
}
