/**
 * @module The Lua scripts of the Redis store. Each runs atomically on the one node that holds
 * its keys, so no two app instances can both take an id (no read-then-write race). Every script
 * names all its keys in KEYS and they share one hash tag, so on Redis Cluster each script
 * touches one slot.
 */
import { createHash } from 'node:crypto';

// Entry hash fields: s state ('l' lock, 'c' completed), t token, f fingerprint, st status,
// h headers (JSON), b body (base64; absent when not stored).

/**
 * KEYS: entry, epoch marker, fence. ARGV: token, fingerprint, lock TTL ms, write ('1') or read
 * only ('0'), fence ms.
 *
 * A missing epoch marker means this node lost what it stored (a restart without persistence, a
 * flush, an eviction): the entry may have been lost with it, so the script raises a fence for
 * `fence ms` and answers `{'e', ms}` instead of a lock, while the fence stands, on every app
 * instance. The marker is written again at once, so the fence is raised once per loss; the
 * answer that raised it is `{'e', ms, 'd', end}` (detected; `end`: when the fence ends, in ms of
 * the server's clock), and the store then fences every other bucket whose node lost its data
 * until that same end (REARM).
 */
const ACQUIRE = `
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('SET', KEYS[2], 'lost')
  if ARGV[5] ~= '0' then
    redis.call('SET', KEYS[3], '1', 'PX', ARGV[5])
    local t = redis.call('TIME')
    return {'e', tonumber(ARGV[5]), 'd', tostring(t[1] * 1000 + math.floor(t[2] / 1000) + ARGV[5])}
  end
end
local fence = redis.call('PTTL', KEYS[3])
if fence > 0 then return {'e', fence} end
local k = KEYS[1]
local s = redis.call('HGET', k, 's')
if s == 'l' then
  return {'l', redis.call('HGET', k, 'f'), redis.call('PTTL', k)}
elseif s then
  local v = redis.call('HMGET', k, 'f', 'st', 'h', 'b')
  return {'c', v[1], v[2], v[3], v[4]}
end
if ARGV[4] ~= '1' then return {'n'} end
redis.call('DEL', k)
redis.call('HSET', k, 's', 'l', 't', ARGV[1], 'f', ARGV[2])
redis.call('PEXPIRE', k, ARGV[3])
return {'a'}
`;

/** KEYS: entry. ARGV: token, fingerprint, status, headers, has body ('1'/'0'), body, TTL ms. */
const COMPLETE = `
local k = KEYS[1]
local s = redis.call('HGET', k, 's')
if s and (s ~= 'l' or redis.call('HGET', k, 't') ~= ARGV[1]) then return 0 end
redis.call('DEL', k)
redis.call('HSET', k, 's', 'c', 'f', ARGV[2], 'st', ARGV[3], 'h', ARGV[4])
if ARGV[5] == '1' then redis.call('HSET', k, 'b', ARGV[6]) end
redis.call('PEXPIRE', k, ARGV[7])
return 1
`;

/** KEYS: entry. ARGV: token. */
const RELEASE = `
local k = KEYS[1]
if redis.call('HGET', k, 's') == 'l' and redis.call('HGET', k, 't') == ARGV[1] then
  return redis.call('DEL', k)
end
return 0
`;

/**
 * KEYS: entry. ARGV: token, lock TTL ms. Extends the lock only while it still holds the token:
 * a lock that expired, was taken by another attempt or was lost with the node's data is never
 * recreated (answers 0).
 */
const RENEW = `
local k = KEYS[1]
local v = redis.call('HMGET', k, 's', 't')
if v[1] == 'l' and v[2] == ARGV[1] then return redis.call('PEXPIRE', k, ARGV[2]) end
return 0
`;

/**
 * KEYS: epoch marker, fence (one bucket). ARGV: when the window ends (ms, server clock, from the
 * detecting answer). After a loss was detected in another bucket: when this bucket's marker is
 * missing too (its node lost it), write it and raise the fence until the window's end, measured
 * on the server's clock so that a late or retried call does not stretch it. A bucket whose node
 * kept its data is left alone.
 */
const REARM = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], 'lost')
local t = redis.call('TIME')
local left = tonumber(ARGV[1]) - (t[1] * 1000 + math.floor(t[2] / 1000))
if left > 0 then redis.call('SET', KEYS[2], '1', 'PX', left) end
return 1
`;

export interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

export const SCRIPTS = {
  acquire: script(ACQUIRE),
  complete: script(COMPLETE),
  release: script(RELEASE),
  renew: script(RENEW),
  rearm: script(REARM),
} as const;
