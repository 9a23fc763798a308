export { ValuesStore, GLOBAL, type ConfigSections } from './store.js';
export { ScopeValues, ValuesValidationError, type StaticLayer, type StoredPatch } from './scope.js';
export { ScopeSchemas, loadScopeSchemas, type SchemaProblem, type SchemaKind } from './schema.js';
export { applyPatch, parsePatchText, toPatchOp, normalizePath, PatchError, type PatchOp } from './patch.js';
export { mergeInto, mergeLayers } from './merge.js';
export { describeSource, type LayerSource } from './layers.js';
