/**
 * The values of one scope — `global` or one module — as layers (VALUES.md "Merged values"):
 * static values (modules dirs' values.yaml, then the module's own), config values (the ConfigMap
 * section), schema defaults, then the volatile patches of hooks in the order they were made.
 */
import { UserError } from '../util/errors.js';
import { checksumJson, cloneJson, isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import { markShared } from './document-json.js';
import { mergeInto } from './merge.js';
import { applyPatch, applyPatchLenient, keptOps, isPathPrefix, escapeSegment, type PatchOp } from './patch.js';
import { describeSource, type LayerSource } from './layers.js';
import { ScopeSchemas, applyDefaults, type SchemaKind, type SchemaProblem } from './schema.js';

export interface StaticLayer {
  source: LayerSource;
  values: JsonObject;
}

export interface StoredPatch {
  hook: string;
  ops: PatchOp[];
}

export class ValuesValidationError extends UserError {
  override name = 'ValuesValidationError';
  constructor(
    message: string,
    readonly problems: readonly SchemaProblem[],
  ) {
    super(message);
  }
}

function hasPath(obj: JsonValue | undefined, segs: readonly (string | number)[]): boolean {
  let cur: JsonValue | undefined = obj;
  for (const s of segs) {
    if (Array.isArray(cur)) cur = cur[Number(s)];
    else if (isPlainObject(cur) && Object.prototype.hasOwnProperty.call(cur, String(s))) cur = cur[String(s)];
    else return false;
    if (cur === undefined) return false;
  }
  return true;
}

export class ScopeValues {
  /** `global` or the module's camelCase values key. */
  readonly key: string;
  /** `global` or `module <name>`, for messages. */
  readonly label: string;
  readonly schemas: ScopeSchemas;
  private staticLayers: StaticLayer[] = [];
  private config: JsonObject = {};
  /** A config was stored before: CEL transition rules compare a new config with it. */
  private configStored = false;
  private configSource: LayerSource;
  /** The config was stored without a check (a disabled module's, as Go stores it) and not checked since. */
  private configUnchecked = false;
  /** The last config that passed the config schema (or the empty one), with its source. */
  private lastValidConfig: { config: JsonObject; source: LayerSource };
  private patches: StoredPatch[] = [];
  private cached?: { effective: JsonObject; checksum?: string };

  constructor(key: string, label: string, schemas: ScopeSchemas = ScopeSchemas.empty()) {
    this.key = key;
    this.label = label;
    this.schemas = schemas;
    this.configSource = { kind: 'configmap', key };
    this.lastValidConfig = { config: {}, source: this.configSource };
  }

  setStatic(layers: StaticLayer[]): void {
    this.staticLayers = layers.map((l) => ({ source: l.source, values: cloneJson(l.values) }));
    this.invalidate();
  }

  get staticValues(): JsonObject {
    const out: JsonObject = {};
    for (const l of this.staticLayers) mergeInto(out, l.values);
    return out;
  }

  /** The raw config section (no defaults): what hooks see in $CONFIG_VALUES_PATH. */
  get configValues(): JsonObject {
    return this.config;
  }

  /** Config values under the config schema's defaults (never over what the user set). */
  configWithDefaults(config: JsonObject = this.config): JsonObject {
    const out: JsonObject = {};
    this.applySchemaDefaults('config', out);
    mergeInto(out, config);
    this.applySchemaDefaults('config', out);
    return out;
  }

  /** Checks candidate config values against the config schema (defaults applied first). */
  checkConfig(config: JsonObject, source: LayerSource, old: JsonObject | undefined = this.configStored ? this.config : undefined): void {
    const withDefaults = this.configWithDefaults(config);
    const problems = this.schemas.validate('config', withDefaults, this.key, old);
    if (problems.length) {
      // name where the value really came from: the config itself, a schema default, or nowhere
      const origin = (segs: readonly (string | number)[]): string =>
        hasPath(config, segs)
          ? `from ${describeSource(source)}`
          : hasPath(withDefaults, segs)
            ? `from ${describeSource({ kind: 'default', file: this.schemas.file('config')! })}`
            : `not set in ${describeSource(source)}`;
      const lines = problems.map((p) => `${p.path}: ${p.message} (${origin(p.segments)})`);
      throw new ValuesValidationError(this.invalidMessage('config', lines), problems);
    }
  }

  /** Replaces the config section after checking it against the config schema. */
  setConfig(config: JsonObject, source: LayerSource = { kind: 'configmap', key: this.key }): void {
    this.checkConfig(config, source);
    this.storeConfig(config, source, true);
  }

  /**
   * Replaces the config section; `checked`: it passed checkConfig. Unchecked (Go stores a disabled
   * module's config unchecked) it is checked by checkUncheckedConfig when the module becomes enabled.
   */
  storeConfig(config: JsonObject, source: LayerSource = { kind: 'configmap', key: this.key }, checked = false): void {
    this.config = cloneJson(config);
    this.configStored = true;
    this.configSource = source;
    this.configUnchecked = !checked && Object.keys(config).length > 0;
    if (!this.configUnchecked) this.lastValidConfig = { config: this.config, source };
    this.invalidate();
  }

  /**
   * Checks a config stored unchecked against the config schema, once (a module becoming enabled: its
   * config is checked before its first run). Throws ValuesValidationError naming the keys.
   */
  checkUncheckedConfig(): void {
    if (!this.configUnchecked) return;
    this.checkConfig(this.config, this.configSource, undefined);
    this.configUnchecked = false;
    this.lastValidConfig = { config: this.config, source: this.configSource };
  }

  /** Goes back to the last config that passed the schema (an unchecked one that fails when it is checked). */
  restoreLastValidConfig(): void {
    const { config, source } = this.lastValidConfig;
    this.storeConfig(config, source, true);
  }

  get storedPatches(): readonly StoredPatch[] {
    return this.patches;
  }

  /** Effective values (a shared, cached object: do not change it). */
  effective(): JsonObject {
    if (!this.cached) this.cached = { effective: markShared(this.compute(this.patches)) };
    return this.cached.effective;
  }

  /** md5 of the effective values under the scope key, independent of key order. */
  checksum(): string {
    const c = this.cached ?? (this.cached = { effective: markShared(this.compute(this.patches)) });
    if (c.checksum === undefined) c.checksum = checksumJson({ [this.key]: c.effective });
    return c.checksum;
  }

  private invalidate(): void {
    this.cached = undefined;
  }

  private applySchemaDefaults(kind: SchemaKind, target: JsonObject): void {
    const schema = this.schemas.schema(kind);
    if (!schema) return;
    applyDefaults(schema, target);
  }

  /** static ⊕ config-schema defaults ⊕ config ⊕ values-schema defaults, then the patches. */
  private compute(patches: readonly StoredPatch[]): JsonObject {
    const result: JsonObject = {};
    for (const l of this.staticLayers) mergeInto(result, l.values);
    this.applySchemaDefaults('config', result);
    mergeInto(result, this.config);
    this.applySchemaDefaults('values', result);
    if (patches.length === 0) return result;
    let doc: JsonObject = { [this.key]: result };
    for (const p of patches) doc = applyPatchLenient(doc, p.ops).result;
    const section = doc[this.key];
    return isPlainObject(section) ? section : {};
  }

  /**
   * Applies a hook's values patch atomically: the ops must address this scope's key; the result is
   * validated against the values schema; on any failure nothing changes. Returns true when the
   * effective values changed.
   */
  applyValuesPatch(ops: readonly PatchOp[], hook: string): boolean {
    if (ops.length === 0) return false;
    this.checkRoots(ops, hook, 'values');
    const before = this.effective();
    const patched = applyPatch({ [this.key]: before } as JsonObject, ops, `values patch of hook ${hook}`);
    const section = patched[this.key];
    if (!isPlainObject(section)) throw new UserError(`values patch of hook ${hook}: ${this.key} must stay an object`);
    const candidate = [...this.patches, { hook, ops: [...ops] }];
    const problems = this.schemas.validate('values', section, this.key, before);
    if (problems.length) {
      const lines = problems.map((p) => `${p.path}: ${p.message} (from ${this.provenance(p.segments, candidate)})`);
      throw new ValuesValidationError(this.invalidMessage('values', lines), problems);
    }
    const oldChecksum = this.checksum();
    if (checksumJson({ [this.key]: section }) === oldChecksum) return false; // nothing changed: nothing to keep
    this.patches = compactStored(candidate);
    this.cached = { effective: markShared(section) };
    return true;
  }

  /**
   * Applies a hook's config patch atomically to the config section and validates it against the
   * config schema. Returns the new config section (for the config backend to persist), or undefined
   * when it did not change.
   */
  applyConfigPatch(ops: readonly PatchOp[], hook: string): JsonObject | undefined {
    if (ops.length === 0) return undefined;
    this.checkRoots(ops, hook, 'config');
    const patched = applyPatch({ [this.key]: this.config } as JsonObject, ops, `config patch of hook ${hook}`);
    const section = patched[this.key];
    if (!isPlainObject(section)) throw new UserError(`config patch of hook ${hook}: ${this.key} must stay an object`);
    if (checksumJson(section) === checksumJson(this.config)) return undefined;
    this.setConfig(section, { kind: 'configmap', key: this.key, changedBy: hook });
    return section;
  }

  private checkRoots(ops: readonly PatchOp[], hook: string, what: string): void {
    const prefix = '/' + escapeSegment(this.key);
    ops.forEach((op, i) => {
      const paths = op.op === 'move' || op.op === 'copy' ? [op.from, op.path] : [op.path];
      for (const p of paths) {
        if (!isPathPrefix(prefix, p)) {
          throw new UserError(`${what} patch of hook ${hook}: operation ${i} (${op.op} ${p}) is outside "${this.key}": a hook of ${this.label} may only change ${prefix}/...`);
        }
        if (p === prefix && (op.op === 'remove' || op.op === 'move')) {
          throw new UserError(`${what} patch of hook ${hook}: operation ${i} (${op.op} ${p}) would remove the whole "${this.key}" section`);
        }
      }
    });
  }

  /** Checks the effective values against the values schema (or the helm schema before rendering). */
  validateEffective(kind: 'values' | 'helm' = 'values'): void {
    const effective = this.effective();
    const problems = this.schemas.validate(kind, effective, this.key);
    if (problems.length) {
      const lines = problems.map((p) => `${p.path}: ${p.message} (from ${this.provenance(p.segments, this.patches)})`);
      throw new ValuesValidationError(this.invalidMessage(kind, lines), problems);
    }
  }

  private invalidMessage(kind: SchemaKind, lines: string[]): string {
    const file = this.schemas.file(kind) ?? '(no schema)';
    const what = kind === 'config' ? 'config values' : kind === 'helm' ? 'values for Helm' : 'values';
    return `${this.label}: ${what} do not match ${file}${kind === 'helm' ? ' (with x-required-for-helm)' : ''}:\n  - ${lines.join('\n  - ')}`;
  }

  /** Which layer the value at `segs` (below the scope key) comes from. */
  provenance(segs: readonly (string | number)[], patches: readonly StoredPatch[] = this.patches): string {
    const pointer = '/' + [this.key, ...segs.map(String)].map(escapeSegment).join('/');
    for (let i = patches.length - 1; i >= 0; i--) {
      const p = patches[i]!;
      if (p.ops.some((op) => isPathPrefix(op.path, pointer) || isPathPrefix(pointer, op.path))) return describeSource({ kind: 'patch', hook: p.hook });
    }
    for (let n = segs.length; n >= 1; n--) {
      const prefix = segs.slice(0, n);
      if (hasPath(this.config, prefix)) return describeSource(this.configSource);
      for (let i = this.staticLayers.length - 1; i >= 0; i--) {
        if (hasPath(this.staticLayers[i]!.values, prefix)) return describeSource(this.staticLayers[i]!.source);
      }
      const fromDefault = this.schemas.file('values') ?? this.schemas.file('config');
      if (n === segs.length && fromDefault && hasPath(this.effective(), prefix)) {
        return describeSource({ kind: 'default', file: fromDefault });
      }
    }
    return 'no layer sets it';
  }

  /** Forgets the volatile patches (e.g. when a module is disabled). */
  resetPatches(): void {
    this.patches = [];
    this.invalidate();
  }
}

function compactStored(patches: StoredPatch[]): StoredPatch[] {
  // flatten to keep each op's hook, compact, then regroup consecutive ops of the same hook
  const flat = patches.flatMap((p) => p.ops.map((op) => ({ hook: p.hook, op })));
  const keep = keptOps(flat.map((f) => f.op));
  const out: StoredPatch[] = [];
  for (const [i, f] of flat.entries()) {
    if (!keep[i]) continue;
    const last = out[out.length - 1];
    if (last && last.hook === f.hook) last.ops.push(f.op);
    else out.push({ hook: f.hook, ops: [f.op] });
  }
  return out;
}
