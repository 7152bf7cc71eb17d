/**
 * The example service's entry point: `PORT` (default 3000), graceful shutdown on SIGTERM/SIGINT.
 */
import { createApp } from './app.js';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const app = createApp({ publicBaseUrl: process.env.PUBLIC_BASE_URL });

const server = app.listen(port, host, () => {
  console.log(`payments-api listening on http://${host}:${port}`);
});

function shutdown(signal: string): void {
  console.log(`${signal} received, closing`);
  server.close(() => process.exit(0));
  // Idle keep-alive connections would hold close() open; in-flight requests still finish.
  server.closeIdleConnections();
  setTimeout(() => process.exit(1), 10_000).unref();
}

process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));
