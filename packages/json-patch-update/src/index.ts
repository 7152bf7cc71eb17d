export { type ApplyPatchOptions, applyJsonPatch } from './apply-json-patch.js';
export { type CheckKnownFieldsOptions, checkKnownFields } from './dropped-members.js';
export { type JsonPatchUpdateOptions, jsonPatchUpdate } from './json-patch-update.js';
export {
  FORBIDDEN_SEGMENTS,
  formatPointer,
  parsePointer,
  toFieldPath,
} from './json-pointer.js';
export {
  JSON_MEDIA_TYPE,
  JSON_PATCH_MEDIA_TYPE,
  MERGE_PATCH_MEDIA_TYPE,
} from './media-types.js';
export { type ApplyMergePatchOptions, applyMergePatch } from './merge-patch.js';
export { type PutReplaceOptions, putReplace } from './put-replace.js';
export { ALWAYS_READ_ONLY } from './read-only.js';
export {
  RESOURCE_DEFAULTS,
  type ResourceRequest,
  type ResourceUpdateOptions,
  type SaveContext,
} from './resource-options.js';
export { type StandardSchemaV1, validateWithSchema } from './schema.js';
export {
  type JsonPatchOp,
  type JsonPatchOperation,
  type ParsedOperation,
  type ValidateOperationsOptions,
  validateOperations,
} from './validate-operations.js';
export { type CheckJsonBodyOptions, checkJsonBody } from './value-checks.js';
