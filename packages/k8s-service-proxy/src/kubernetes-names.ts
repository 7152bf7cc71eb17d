/**
 * @module Kubernetes name rules for the parts of a service proxy path.
 * @see https://kubernetes.io/docs/concepts/overview/working-with-objects/names/
 */

/** RFC 1123 label: namespaces. Lower-case alphanumerics and `-`, 63 characters at most. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** RFC 1035 label: service names, which must also start with a letter. */
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** IANA service name (RFC 6335 §5.1): named ports; 15 characters, a letter, no `--`. */
const IANA_SVC_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const MAX_LABEL_LENGTH = 63;

export function isNamespaceName(value: string): boolean {
  return typeof value === 'string' && value.length <= MAX_LABEL_LENGTH && DNS1123_LABEL.test(value);
}

export function isServiceName(value: string): boolean {
  return typeof value === 'string' && value.length <= MAX_LABEL_LENGTH && DNS1035_LABEL.test(value);
}

/** A port name (`http`, `metrics`) or number (`1`–`65535`). */
export function isPortName(value: string): boolean {
  if (typeof value !== 'string') return false;
  if (/^[0-9]+$/.test(value)) {
    const port = Number(value);
    return !value.startsWith('0') && port >= 1 && port <= 65535;
  }
  return (
    value.length <= 15 && IANA_SVC_NAME.test(value) && /[a-z]/.test(value) && !value.includes('--')
  );
}
