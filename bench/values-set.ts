/**
 * The module set of bench/values and bench/values-ab: modules with 50 keys each, whose schemas carry Go
 * regexps (RE2 named groups) and CEL rules (x-deckhouse-validations) as real module sets do.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '../src/util/json.js';
import type * as Values from '../src/values/index.js';

export const KEYS = 50;

export function moduleValues(i: number): { staticValues: JsonObject; config: JsonObject } {
  const staticValues: JsonObject = {};
  const config: JsonObject = {};
  for (let k = 0; k < KEYS; k++) {
    const key = `key${k}`;
    switch (k % 5) {
      case 0:
        staticValues[key] = `value-${i}-${k}`;
        break;
      case 1:
        staticValues[key] = k * i;
        break;
      case 2:
        staticValues[key] = { enabled: k % 2 === 0, name: `n${k}`, limits: { cpu: '100m', memory: '128Mi' } };
        break;
      case 3:
        staticValues[key] = [`a${k}`, `b${k}`, `c${k}`];
        break;
      default:
        config[key] = { replicas: (k % 3) + 1, image: { repository: 'registry.example.com/app', tag: `v${k}` } };
    }
  }
  return { staticValues, config };
}

export function schemaYaml(): { config: string; values: string } {
  const props: string[] = [];
  const configProps: string[] = [];
  for (let k = 0; k < KEYS; k++) {
    const key = `key${k}`;
    switch (k % 5) {
      case 0:
        props.push(`  ${key}: {type: string, pattern: "^(?P<name>value)-(?P<module>\\\\d+)-\\\\d+$", x-doc-default: x}`);
        break;
      case 1:
        props.push(`  ${key}: {type: number, minimum: 0}`);
        break;
      case 2:
        props.push(
          `  ${key}:\n    type: object\n    x-deckhouse-validations:\n      - expression: "!self.enabled || self.name.startsWith('n')"\n        message: "an enabled one is named n..."\n    properties:\n      enabled: {type: boolean}\n      name: {type: string, pattern: "^n\\\\d+$"}\n      limits:\n        type: object\n        properties:\n          cpu: {type: string, pattern: "^\\\\d+m$"}\n          memory: {type: string, pattern: "^(?P<n>\\\\d+)(?P<unit>Mi|Gi)$"}`,
        );
        break;
      case 3:
        props.push(`  ${key}:\n    type: array\n    items: {type: string}`);
        break;
      default:
        configProps.push(
          `  ${key}:\n    type: object\n    properties:\n      replicas: {type: integer, minimum: 1, default: 1}\n      image:\n        type: object\n        properties:\n          repository: {type: string}\n          tag: {type: string}\n          pullPolicy: {type: string, enum: [Always, IfNotPresent], default: IfNotPresent}`,
        );
    }
  }
  return {
    config: `type: object\nproperties:\n${configProps.join('\n')}\n`,
    values: `x-extend:\n  schema: config-values.yaml\ntype: object\nproperties:\n${props.join('\n')}\n  internal:\n    type: object\n    default: {}\n    properties:\n      ready: {type: boolean, default: false}\n`,
  };
}

/** Writes `count` modules' schemas below `dir` and loads them with `lib` (this checkout's src/values or another's). */
export function buildModuleSet(lib: typeof Values, dir: string, count: number): { scope: Values.ScopeValues; config: JsonObject }[] {
  const schemas = schemaYaml();
  const scopes: { scope: Values.ScopeValues; config: JsonObject }[] = [];
  for (let i = 0; i < count; i++) {
    const openapi = join(dir, `m${i}`, 'openapi');
    mkdirSync(openapi, { recursive: true });
    writeFileSync(join(openapi, 'config-values.yaml'), schemas.config);
    writeFileSync(join(openapi, 'values.yaml'), schemas.values);
    const scope = new lib.ScopeValues(`module${i}`, `module module${i}`, lib.loadScopeSchemas(openapi));
    const v = moduleValues(i);
    scope.setStatic([{ source: { kind: 'file', file: `m${i}/values.yaml` }, values: v.staticValues }]);
    scopes.push({ scope, config: v.config });
  }
  return scopes;
}

/** One check of every module: new config, effective values, validation, checksum. */
export function checkAll(scopes: { scope: Values.ScopeValues; config: JsonObject }[]): void {
  for (const { scope, config } of scopes) {
    scope.setConfig(config);
    scope.effective();
    scope.validateEffective();
    scope.checksum();
  }
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
