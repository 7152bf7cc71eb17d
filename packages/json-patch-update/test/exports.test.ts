import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'ALWAYS_READ_ONLY',
    'FORBIDDEN_SEGMENTS',
    'JSON_MEDIA_TYPE',
    'JSON_PATCH_MEDIA_TYPE',
    'MERGE_PATCH_MEDIA_TYPE',
    'RESOURCE_DEFAULTS',
    'applyJsonPatch',
    'applyMergePatch',
    'checkJsonBody',
    'checkKnownFields',
    'formatPointer',
    'jsonPatchUpdate',
    'parsePointer',
    'putReplace',
    'toFieldPath',
    'validateOperations',
    'validateWithSchema',
  ]);
});
