import { createConfig, lintFromString } from '@redocly/openapi-core';
import { expect, it } from 'vitest';
import { describeApi, openApiDocument } from '../src/index.js';
import { Decision, exampleApi } from './fixtures.js';

async function lintSummary(document: unknown): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: 'openapi.json',
    config,
  });
  return problems.map(
    (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`,
  );
}

it.each([
  ['resources in an external store', {}],
  ['resources in process', { storage: 'in-process' as const }],
  [
    'resources and Service-Request-Id store in process',
    { storage: 'in-process' as const, idempotencyStorage: 'in-process' as const },
  ],
  ['lists paged by continuation token', { tokens: true }],
])('passes Redocly’s recommended rules with no errors: %s', async (_, deployment) => {
  const summary = await lintSummary(
    openApiDocument(exampleApi(deployment), { license: { name: 'MIT', identifier: 'MIT' } }),
  );
  expect(summary.filter((line) => line.startsWith('error'))).toEqual([]);
  // Warnings kept on purpose are listed in the README; anything else fails here.
  expect(summary).toEqual([]);
});

it('leaves out the parameter components no operation names: a lone list with its own offset bound', async () => {
  const document = openApiDocument(
    describeApi({
      title: 'Decisions',
      version: '1.0.0',
      pathVersion: 'v1',
      resources: [
        {
          name: 'Decision',
          path: '/risk/decisions',
          summary: 'Decisions.',
          representation: Decision,
          operations: { list: { maxOffset: 10_000 } },
        },
      ],
    }),
    { license: { name: 'MIT', identifier: 'MIT' } },
  );
  const components = document.components as { parameters: Record<string, unknown> };
  expect(Object.keys(components.parameters).sort()).toEqual([
    'IfMatch',
    'IfNoneMatch',
    'limit',
    'page_size',
  ]);
  expect(await lintSummary(document)).toEqual([]);
});
