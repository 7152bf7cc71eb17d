/**
 * @module The error thrown at start when the cluster's configuration cannot be used: a kubeconfig
 * that is missing or invalid, a credential file that cannot be read, a proxy URL that cannot be
 * used, no credentials at all. It
 * carries a stable `code` (as option-checks' `ERR_RESOURCEFUL_*` codes) and, where one is at
 * fault, the `path` of the file. The message names the file, field or option and may be
 * reworded; the codes are part of the public API.
 */

/** Stable codes of `ClusterConfigError`: they never change meaning between versions. */
export const CLUSTER_ERROR_CODES = Object.freeze({
  /** An explicitly given kubeconfig path (`kubeconfig` / `path`) does not exist. */
  kubeconfigNotFound: 'ERR_RESOURCEFUL_KUBECONFIG_NOT_FOUND',
  /**
   * A kubeconfig that cannot be used: not YAML, a field of the wrong type, a context, cluster or
   * user it does not define, contradicting or missing credential fields.
   */
  kubeconfigInvalid: 'ERR_RESOURCEFUL_KUBECONFIG_INVALID',
  /** A file named by the kubeconfig or the options (kubeconfig, certificate, key, token) cannot be read. */
  fileUnreadable: 'ERR_RESOURCEFUL_FILE_UNREADABLE',
  /** A token file holds only whitespace. */
  tokenFileEmpty: 'ERR_RESOURCEFUL_TOKEN_FILE_EMPTY',
  /** `loadClusterCredentials` found no kubeconfig, no service account and no explicit server. */
  noClusterCredentials: 'ERR_RESOURCEFUL_NO_CLUSTER_CREDENTIALS',
  /** An explicit `server` over https with no token, username or client certificate for it. */
  noCredential: 'ERR_RESOURCEFUL_NO_CREDENTIAL',
  /**
   * A proxy URL read from the kubeconfig (the cluster's `proxy-url`) or the environment
   * (`HTTPS_PROXY` / `HTTP_PROXY`) that does not parse or names a scheme other than http, https
   * and socks5.
   */
  proxyUrlInvalid: 'ERR_RESOURCEFUL_PROXY_URL_INVALID',
} as const);

export type ClusterErrorCode = (typeof CLUSTER_ERROR_CODES)[keyof typeof CLUSTER_ERROR_CODES];

/** A start-time error of the cluster configuration, with a stable `code`. */
export class ClusterConfigError extends Error {
  override readonly name = 'ClusterConfigError';
  constructor(
    readonly code: ClusterErrorCode,
    message: string,
    /** The file at fault, when one is. */
    readonly path?: string,
  ) {
    super(message);
  }
}

/** A kubeconfig content error (`ERR_RESOURCEFUL_KUBECONFIG_INVALID`). */
export function kubeconfigError(message: string, path?: string): ClusterConfigError {
  return new ClusterConfigError(CLUSTER_ERROR_CODES.kubeconfigInvalid, message, path);
}

/** A file that cannot be read, named with its role and the errno code. */
export function unreadableFile(what: string, path: string, error: unknown): ClusterConfigError {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  return new ClusterConfigError(
    CLUSTER_ERROR_CODES.fileUnreadable,
    `cannot read ${what} ${path} (${code})`,
    path,
  );
}
