/**
 * @module What the Redis store needs from the server to keep its promise: it must keep what it
 * stored. A Redis without append-only persistence loses the stored ids when it restarts; one
 * that evicts keys under memory pressure may drop them sooner. Either way a retry after the
 * loss runs the request again. Checked once when the store connects; the finding is one line.
 * @see https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/
 * @see https://redis.io/docs/latest/develop/reference/eviction/
 */

/** Reads one `CONFIG GET name` reply (RESP2 array of pairs, or a RESP3 map) into a value. */
function configValue(reply: unknown, name: string): string | undefined {
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) {
      if (String(reply[i]).toLowerCase() === name) return String(reply[i + 1]);
    }
    return undefined;
  }
  if (reply instanceof Map) {
    const value: unknown = reply.get(name);
    return value === undefined ? undefined : String(value);
  }
  if (typeof reply === 'object' && reply !== null && name in reply) {
    return String((reply as Record<string, unknown>)[name]);
  }
  return undefined;
}

/**
 * The problems of a configuration, as short phrases; empty when it can hold the guarantee:
 * `appendonly yes` (RDB snapshots alone lose the writes since the last one), and no eviction
 * (`maxmemory 0`, or `maxmemory-policy noeviction`: every key of the store has a TTL, so even
 * the `volatile-*` policies may evict them).
 */
export function configProblems(config: {
  appendonly?: string;
  maxmemory?: string;
  'maxmemory-policy'?: string;
}): string[] {
  const problems: string[] = [];
  if (config.appendonly !== undefined && config.appendonly !== 'yes') {
    problems.push('appendonly is off (a restart loses the stored ids)');
  }
  const evicts =
    config.maxmemory !== undefined &&
    config.maxmemory !== '0' &&
    config['maxmemory-policy'] !== undefined &&
    config['maxmemory-policy'] !== 'noeviction';
  if (evicts) {
    problems.push(`maxmemory-policy is ${config['maxmemory-policy']} (stored ids may be evicted)`);
  }
  return problems;
}

/** Asks the server for its settings and answers the one-line warning, or undefined. */
export async function checkRedisConfig(
  send: (args: string[]) => Promise<unknown>,
): Promise<string | undefined> {
  const advice =
    'a retry after a loss runs twice; set appendonly yes and maxmemory-policy noeviction';
  let config: Record<string, string | undefined>;
  try {
    const names = ['appendonly', 'maxmemory', 'maxmemory-policy'] as const;
    const replies = await Promise.all(names.map((name) => send(['CONFIG', 'GET', name])));
    config = Object.fromEntries(names.map((name, i) => [name, configValue(replies[i], name)]));
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return `redisStore: cannot read the Redis configuration (${reason}); make sure it persists and never evicts: ${advice}.`;
  }
  const problems = configProblems(config);
  if (problems.length === 0) return undefined;
  return `redisStore: Redis cannot hold the exactly-once guarantee: ${problems.join('; ')}; ${advice}.`;
}
