import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the "source" condition, so the
// tests run against src/ without a build step. CI tests the built output separately.
const conditions = ['source', 'module', 'node', 'development|production'];

const projectDirs = ['packages', 'examples']
  .flatMap((group) => readdirSync(group).map((name) => join(group, name)))
  .filter((dir) => existsSync(join(dir, 'test')));

// graphql 17 needs Node 22+: there, graphql-description's suite runs a second time against it.
const nodeMajor = Number(process.versions.node.split('.')[0]);
const graphql17Project =
  nodeMajor >= 22
    ? [
        {
          extends: true as const,
          resolve: { alias: { graphql: 'graphql17' } },
          test: {
            name: 'graphql-description (graphql 17)',
            root: 'packages/graphql-description',
            include: ['test/**/*.test.ts'],
            env: { GRAPHQL_MAJOR: '17' },
          },
        },
      ]
    : [];

// http-proxy-middleware 4 needs Node 22.15+: there, k8s-service-proxy's suite for
// clusterServiceProxyOptions() runs a second time against it.
const httpProxyMiddleware4Project =
  nodeMajor >= 22
    ? [
        {
          extends: true as const,
          resolve: { alias: { 'http-proxy-middleware': 'http-proxy-middleware4' } },
          test: {
            name: 'k8s-service-proxy (http-proxy-middleware 4)',
            root: 'packages/k8s-service-proxy',
            include: ['test/http-proxy-middleware.test.ts'],
            env: { HTTP_PROXY_MIDDLEWARE_MAJOR: '4' },
            testTimeout: 20_000,
            hookTimeout: 60_000,
          },
        },
      ]
    : [];

// The example's suites once more on PostgreSQL (DATABASE_URL from a server test-support starts):
// on Node 20 only, the CI machine's own, to keep the three-version CI run short; the stores do
// not differ by Node version. PAYMENTS_API_POSTGRES=0 leaves the pass out, =1 forces it.
const postgresInstalled =
  process.env.POSTGRES_BIN_DIR !== undefined ||
  (existsSync('/usr/lib/postgresql') &&
    readdirSync('/usr/lib/postgresql').some((major) =>
      existsSync(join('/usr/lib/postgresql', major, 'bin', 'initdb')),
    ));
const examplePostgresPass =
  process.env.PAYMENTS_API_POSTGRES === '1' ||
  (process.env.PAYMENTS_API_POSTGRES !== '0' && nodeMajor === 20 && postgresInstalled);
const examplePostgresProject = examplePostgresPass
  ? [
      {
        extends: true as const,
        test: {
          name: 'payments-api (postgres)',
          root: 'examples/payments-api',
          include: ['test/**/*.test.ts'],
          // Suites that never touch the resource stores (Redis, the process, the docs page,
          // money arithmetic, types) gain nothing from a second pass. http-conventions' raw
          // socket tests half-close before reading, and Node aborts a request whose client
          // half-closed before its answer was ready: with a database no answer is ready then.
          exclude: [
            'test/http-conventions.test.ts',
            // Start their own PostgreSQL (and two service processes) in either pass.
            'test/postgres-instances.test.ts',
            'test/postgres-store.test.ts',
            'test/postgres-stalls.test.ts',
            'test/postgres-differential.test.ts',
            'test/description-limits.test.ts',
            'test/redis-cluster.test.ts',
            'test/shared-redis.test.ts',
            'test/docs-page.test.ts',
            'test/money.test.ts',
            'test/handler-types.test.ts',
            'test/server.test.ts',
            'test/api-description.test.ts',
          ],
          globalSetup: ['test/postgres/global-setup.ts'],
          setupFiles: ['test/postgres/setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      },
    ]
  : [];

// The Redis Cluster failover trials (SIGKILL of a primary, a minute or more per run) measure the
// server's failover and the store's recovery; the cluster suite covers the client on every Node
// version, so in the three-version CI run the trials run on Node 20 only.
// IDEMPOTENCY_FAILOVER=1 forces them on any version, =0 leaves them out.
const failoverTrials =
  process.env.IDEMPOTENCY_FAILOVER === '1' ||
  (process.env.IDEMPOTENCY_FAILOVER !== '0' && nodeMajor === 20);

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['source'] } },
  test: {
    // One worker per core, at least two: most suites wait on real servers (redis-server,
    // PostgreSQL, kubectl, sockets) rather than compute, and vitest's default (cores - 1) is a
    // single worker on the 2-core CI machine (Node 20 pass: 517 s with one, 332 s with two).
    maxWorkers: Math.max(2, availableParallelism()),
    // graphql-http imports graphql as Node resolves it (the CommonJS main); inlined, it shares
    // the one graphql instance the sources get, as it does in an app ("another realm" otherwise).
    server: { deps: { inline: ['graphql-http'] } },
    reporters: ['default', './scripts/summary-reporter.ts'],
    projects: [
      ...projectDirs.map((dir) => ({
        extends: true as const,
        test: {
          name: dir.split('/')[1],
          root: dir,
          include: ['test/**/*.test.ts'],
          exclude: failoverTrials ? [] : ['test/redis-failover.test.ts'],
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      })),
      ...graphql17Project,
      ...httpProxyMiddleware4Project,
      ...examplePostgresProject,
    ],
  },
});
