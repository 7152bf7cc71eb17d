/**
 * @module `--www`: static files under `--www-prefix`, like Go's `http.FileServer` behind
 * `http.StripPrefix`: files, `index.html` for folders, a plain listing otherwise; nothing
 * outside the folder is ever served.
 */
import { createReadStream, readdirSync, realpathSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { cleanPath, decodePath, movedPermanently, plainError } from './go-http.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
};

export function createStaticHandler(root: string, prefix: string) {
  const base = realpathSync(root);
  return function serveStatic(req: IncomingMessage, res: ServerResponse, rawPath: string): void {
    if (!rawPath.startsWith(prefix)) {
      plainError(res, 404, '404 page not found');
      return;
    }
    const decoded = decodePath(rawPath.slice(prefix.length));
    if (decoded === undefined || decoded.includes('\0')) {
      plainError(res, 400, '400 Bad Request');
      return;
    }
    const relative = cleanPath(decoded);
    let file = join(base, relative);
    let real: string;
    try {
      real = realpathSync(file);
    } catch {
      plainError(res, 404, '404 page not found');
      return;
    }
    if (real !== base && !real.startsWith(base + sep)) {
      plainError(res, 404, '404 page not found');
      return;
    }
    let stats = statSync(real);
    if (stats.isDirectory()) {
      if (!rawPath.endsWith('/')) {
        const name = rawPath.slice(rawPath.lastIndexOf('/') + 1);
        movedPermanently(res, `${name}/`);
        return;
      }
      const index = join(real, 'index.html');
      try {
        stats = statSync(index);
        file = index;
      } catch {
        const names = readdirSync(real, { withFileTypes: true })
          .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
          .sort();
        const body = `<pre>\n${names
          .map((name) => `<a href="${encodeURI(name)}">${name.replace(/[&<>"']/g, '')}</a>`)
          .join('\n')}\n</pre>\n`;
        res.writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
        });
        res.end(req.method === 'HEAD' ? undefined : body);
        return;
      }
    } else {
      file = real;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': stats.size,
      'Last-Modified': stats.mtime.toUTCString(),
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  };
}
