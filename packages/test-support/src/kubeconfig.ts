/**
 * @module Kubeconfig files for the k8s packages' tests: one cluster (`double`), one user
 * (`tester`) and one current context, the user given as fields (`writeKubeconfig`), as an exec
 * stanza (`writeExecKubeconfig`) or as raw YAML lines; written as kubectl would read them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  clientCertificate?: string;
  clientKey?: string;
}

/** A kubeconfig `exec` stanza (client.authentication.k8s.io). */
export interface ExecStanza {
  /** @default 'client.authentication.k8s.io/v1beta1' */
  apiVersion?: string;
  command: string;
  args?: readonly string[];
  env?: readonly { name: string; value: string }[];
  interactiveMode?: string;
  installHint?: string;
  provideClusterInfo?: boolean;
}

export interface KubeconfigDocument {
  server: string;
  /** The cluster's `certificate-authority` file. */
  caFile?: string;
  /** More lines of the cluster entry, indented by four spaces. */
  clusterLines?: readonly string[];
  /** Lines of the user entry, indented by four spaces; `user: {}` when none. */
  userLines?: readonly string[];
  /** The context's namespace. */
  namespace?: string;
}

/** The YAML of a kubeconfig with one cluster `double`, one user `tester`, context `double`. */
export function kubeconfigYaml(doc: KubeconfigDocument): string {
  const userLines = doc.userLines ?? [];
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: double',
    '  cluster:',
    `    server: ${doc.server}`,
    ...(doc.caFile === undefined ? [] : [`    certificate-authority: ${doc.caFile}`]),
    ...(doc.clusterLines ?? []),
    'users:',
    '- name: tester',
    `  user:${userLines.length === 0 ? ' {}' : ''}`,
    ...userLines,
    'contexts:',
    '- name: double',
    '  context:',
    '    cluster: double',
    '    user: tester',
    ...(doc.namespace === undefined ? [] : [`    namespace: ${doc.namespace}`]),
    'current-context: double',
    '',
  ].join('\n');
}

/** Writes `kubeconfigYaml(doc)` to `dir/name`; returns the path. */
export function writeKubeconfigDocument(
  dir: string,
  name: string,
  doc: KubeconfigDocument,
): string {
  const file = join(dir, name);
  writeFileSync(file, kubeconfigYaml(doc));
  return file;
}

/** A kubeconfig whose user has the given fields (context namespace `default`). */
export function writeKubeconfig(
  dir: string,
  options: { server: string; caFile?: string; user?: KubeconfigUser; name?: string },
): string {
  const user = options.user ?? {};
  const userLines = [
    user.token === undefined ? '' : `    token: ${user.token}`,
    user.tokenFile === undefined ? '' : `    tokenFile: ${user.tokenFile}`,
    user.clientCertificate === undefined ? '' : `    client-certificate: ${user.clientCertificate}`,
    user.clientKey === undefined ? '' : `    client-key: ${user.clientKey}`,
  ].filter((line) => line !== '');
  return writeKubeconfigDocument(dir, options.name ?? 'kubeconfig.yaml', {
    server: options.server,
    caFile: options.caFile,
    userLines,
    namespace: 'default',
  });
}

/** A kubeconfig whose user runs `exec` (or is given by `userLines`, e.g. an auth-provider). */
export function writeExecKubeconfig(
  dir: string,
  options: {
    server: string;
    caFile?: string;
    exec?: ExecStanza;
    userLines?: readonly string[];
    clusterLines?: readonly string[];
    name?: string;
  },
): string {
  const exec = options.exec;
  const execLines =
    exec === undefined
      ? []
      : [
          '    exec:',
          `      apiVersion: ${exec.apiVersion ?? 'client.authentication.k8s.io/v1beta1'}`,
          `      command: ${JSON.stringify(exec.command)}`,
          `      args: ${JSON.stringify(exec.args ?? [])}`,
          `      env: ${JSON.stringify(exec.env ?? [])}`,
          ...(exec.interactiveMode ? [`      interactiveMode: ${exec.interactiveMode}`] : []),
          ...(exec.installHint ? [`      installHint: ${JSON.stringify(exec.installHint)}`] : []),
          ...(exec.provideClusterInfo ? ['      provideClusterInfo: true'] : []),
        ];
  return writeKubeconfigDocument(dir, options.name ?? 'exec-kubeconfig.yaml', {
    server: options.server,
    caFile: options.caFile || undefined,
    clusterLines: options.clusterLines,
    userLines: [...execLines, ...(options.userLines ?? [])],
  });
}
