export { type EnvelopeExpectation, expectErrorEnvelope } from './error-assertions.js';
export {
  describeEachExpress,
  type ExpressModule,
  type ExpressVersion,
  expressVersions,
} from './express-versions.js';
export {
  type ExecStanza,
  type KubeconfigDocument,
  type KubeconfigUser,
  kubeconfigYaml,
  writeExecKubeconfig,
  writeKubeconfig,
  writeKubeconfigDocument,
} from './kubeconfig.js';
export { type PostgresPool, startPostgresPool } from './postgres-pool.js';
export {
  findPostgresBinDir,
  hasPostgresServer,
  type PostgresServer,
  startPostgresServer,
} from './postgres-server.js';
export {
  type ExactResponse,
  exactRequest,
  parseRawResponses,
  type RawAnswer,
  type RawExchange,
  type RawResponse,
  rawExchange,
  rawRequestOnce,
} from './raw-http.js';
export {
  connectedRedisClient,
  type RedisClient,
  type RedisClientOptions,
  type RedisClients,
  redisClient,
  redisClients,
} from './redis-client.js';
export {
  findRedisCli,
  hasRedisCluster,
  type RedisCluster,
  type RedisClusterNode,
  type StartRedisClusterOptions,
  startRedisCluster,
} from './redis-cluster.js';
export {
  findRedisServer,
  hasRedisServer,
  type RedisServer,
  startRedisServer,
} from './redis-server.js';
export {
  type RedisClusterSuite,
  type RedisServerSuite,
  useRedisCluster,
  useRedisServer,
} from './redis-suites.js';
export { answerHeaders, expectReplayOf, PER_RESPONSE_HEADERS } from './replay-assertions.js';
export {
  acceptsConnections,
  closeServer,
  freePort,
  listen,
  type RunningServer,
  refusedPort,
  waitFor,
} from './servers.js';
export { thrownBy } from './thrown.js';
export { parseXmlMirror } from './xml-mirror.js';
