/**
 * @module The API description over HTTP: the OpenAPI document at `/v1/openapi.json` and an
 * interactive reference page at `/v1/docs` (Swagger UI, served from the installed
 * `swagger-ui-dist` package: the page needs no CDN). Mounted before content negotiation, so
 * each answer is compressed here (`compressAnswers`) and the document negotiates its own two
 * media types.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import {
  type ApiDescription,
  type OpenApiDocument,
  openApiDocument,
} from '@resourceful/api-description';
import type { Express, NextFunction, Request, Response } from 'express';
import { compressAnswers } from '../answer-compression.js';
import { openApiMediaType } from './openapi-media-type.js';
import { withRequestLimits } from './request-limits.js';

export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_PATH = '/v1/docs';

/**
 * The files of `swagger-ui-dist` the page loads, and the license notice the bundle's first line
 * points to, with their `Content-Type` (the same under Express 4 and 5, whose `send` versions
 * name them differently; JavaScript as RFC 9239 names it). Nothing else of the package (its
 * `package.json`, source maps, its own `index.html`) is served. Each is a route of its own, so
 * OPTIONS and 405 come from the routes, as everywhere.
 */
export const DOCS_ASSETS: Readonly<Record<string, string>> = Object.freeze({
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-bundle.js.LICENSE.txt': 'text/plain; charset=utf-8',
});

const swaggerUiDirectory = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

/**
 * The path of the public base URL (`/payments` for `https://api.example.com/payments`), put
 * before the paths a client is given outside the lists' absolute links: the reference page's
 * assets, its document, the `rel="help"` links. Empty without a base, or with a base the
 * factories will refuse (their error names the option).
 */
export function basePath(publicBaseUrl: string | undefined): string {
  if (publicBaseUrl === undefined) return '';
  try {
    return new URL(publicBaseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

function page(prefix: string): string {
  const docs = `${prefix}${DOCS_PATH}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Resourceful payments API</title>
<link rel="stylesheet" href="${docs}/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${docs}/assets/swagger-ui-bundle.js"></script>
<script src="${docs}/init.js"></script>
</body>
</html>
`;
}

// A script file rather than an inline script, so a Content-Security-Policy of `script-src 'self'`
// holds for the page.
function init(prefix: string): string {
  return `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(prefix + OPENAPI_PATH)}, dom_id: '#swagger-ui', deepLinking: true });\n`;
}

export function openApiFor(
  description: ApiDescription,
  publicBaseUrl: string | undefined,
): OpenApiDocument {
  // The body and URL bounds the service holds every request to (request-limits.ts).
  return withRequestLimits(
    openApiDocument(description, {
      serverUrl: publicBaseUrl ?? '/',
      documentationUrl: `${publicBaseUrl ?? ''}${DOCS_PATH}`,
      license: { name: 'MIT', identifier: 'MIT' },
    }),
  );
}

/** Sends one file of `swagger-ui-dist` (ETag, Last-Modified, ranges: `send`'s handling). */
function sendAsset(file: string, type: string) {
  return function sendDocsAsset(_req: Request, res: Response, next: NextFunction): void {
    // send keeps a Content-Type already set.
    res.setHeader('Content-Type', type);
    res.sendFile(file, { root: swaggerUiDirectory }, (error?: Error) => {
      // After the headers (a client gone mid-file) there is nothing left to answer.
      if (error !== undefined && !res.headersSent) next(error);
    });
  };
}

export function mountApiDocs(
  app: Express,
  publicBaseUrl: string | undefined,
  /** The app's description: `describePaymentsApi` for its configuration. */
  description: ApiDescription,
): void {
  const document = JSON.stringify(openApiFor(description, publicBaseUrl));
  const prefix = basePath(publicBaseUrl);
  const pageHtml = page(prefix);
  const initScript = init(prefix);
  const compressed = compressAnswers();
  app.get(OPENAPI_PATH, compressed, function sendOpenApi(req: Request, res: Response): void {
    // Chosen by Accept, the 406 too (RFC 9110 §12.5.5).
    res.vary('Accept');
    // 406 for an Accept neither media type satisfies (thrown: the error handler's envelope).
    res.type(openApiMediaType(req)).send(document);
  });
  app.get(DOCS_PATH, compressed, (_req: Request, res: Response) => {
    res.type('html').send(pageHtml);
  });
  app.get(`${DOCS_PATH}/init.js`, compressed, (_req: Request, res: Response) => {
    res.type('text/javascript').send(initScript);
  });
  for (const [file, type] of Object.entries(DOCS_ASSETS)) {
    app.get(`${DOCS_PATH}/assets/${file}`, compressed, sendAsset(file, type));
  }
}
