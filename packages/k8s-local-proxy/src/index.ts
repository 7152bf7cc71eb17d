export {
  createLocalProxy,
  DEFAULT_PROXY_PORT,
  type LocalProxy,
  type LocalProxyOptions,
} from './local-proxy.js';
export {
  createRequestFilter,
  DEFAULT_ACCEPT_HOSTS,
  DEFAULT_ACCEPT_PATHS,
  DEFAULT_REJECT_METHODS,
  DEFAULT_REJECT_PATHS,
  type RequestFilter,
  type RequestFilterOptions,
} from './request-filter.js';
export { runCli } from './run-cli.js';
export { type CommandIo, type RunningCommand, runProxyCommand } from './run-proxy-command.js';
