/**
 * @module Writes kubeconfig files for tests.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  clientCertificate?: string;
  clientKey?: string;
}

/** A kubeconfig with one cluster, one user and one current context, written to `dir`. */
export function writeKubeconfig(
  dir: string,
  options: { server: string; caFile?: string; user?: KubeconfigUser; name?: string },
): string {
  const file = join(dir, options.name ?? 'kubeconfig.yaml');
  const user = options.user ?? {};
  const userLines = [
    user.token === undefined ? '' : `    token: ${user.token}`,
    user.tokenFile === undefined ? '' : `    tokenFile: ${user.tokenFile}`,
    user.clientCertificate === undefined ? '' : `    client-certificate: ${user.clientCertificate}`,
    user.clientKey === undefined ? '' : `    client-key: ${user.clientKey}`,
  ].filter((line) => line !== '');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: double',
      '  cluster:',
      `    server: ${options.server}`,
      options.caFile === undefined ? '' : `    certificate-authority: ${options.caFile}`,
      'users:',
      '- name: tester',
      `  user:${userLines.length === 0 ? ' {}' : ''}`,
      ...userLines,
      'contexts:',
      '- name: double',
      '  context:',
      '    cluster: double',
      '    user: tester',
      '    namespace: default',
      'current-context: double',
      '',
    ]
      .filter((line, index, lines) => line !== '' || index === lines.length - 1)
      .join('\n'),
  );
  return file;
}
