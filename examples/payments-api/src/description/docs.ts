/**
 * @module The API description over HTTP: the OpenAPI document at `/v1/openapi.json` and an
 * interactive reference page at `/v1/docs` (Swagger UI, served from the installed
 * `swagger-ui-dist` package: the page needs no CDN).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import {
  type ApiDescription,
  type OpenApiDocument,
  openApiDocument,
} from '@resourceful/api-description';
import type { Express, Request, Response } from 'express';
import type { ExpressModule } from '../app.js';

export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_PATH = '/v1/docs';

const swaggerUiDirectory = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Resourceful payments API</title>
<link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

// A script file rather than an inline script, so a Content-Security-Policy of `script-src 'self'`
// holds for the page.
const INIT = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#swagger-ui', deepLinking: true });\n`;

export function openApiFor(
  description: ApiDescription,
  publicBaseUrl: string | undefined,
): OpenApiDocument {
  return openApiDocument(description, {
    serverUrl: publicBaseUrl ?? '/',
    documentationUrl: `${publicBaseUrl ?? ''}${DOCS_PATH}`,
    license: { name: 'MIT', identifier: 'MIT' },
  });
}

export function mountApiDocs(
  app: Express,
  express: ExpressModule,
  publicBaseUrl: string | undefined,
  /** The app's description: `describePaymentsApi` for its configuration. */
  description: ApiDescription,
): void {
  const document = JSON.stringify(openApiFor(description, publicBaseUrl));
  app.get(OPENAPI_PATH, (_req: Request, res: Response) => {
    res.type('application/json').send(document);
  });
  app.get(DOCS_PATH, (_req: Request, res: Response) => {
    res.type('html').send(PAGE);
  });
  app.get(`${DOCS_PATH}/init.js`, (_req: Request, res: Response) => {
    res.type('text/javascript').send(INIT);
  });
  app.use(
    `${DOCS_PATH}/assets`,
    express.static(swaggerUiDirectory, { index: false, fallthrough: true }),
  );
}
