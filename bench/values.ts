/**
 * bench/values: computing, validating and checksumming the effective values of 300 modules with 50
 * keys each, per module, as a ratio to a deep copy (structuredClone) of the same values.
 * Target (issue 2): at most 20×.   Run: node --import tsx bench/values.ts
 */
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ScopeValues, loadScopeSchemas } from '../src/values/index.js';
import type { JsonObject } from '../src/util/json.js';

const MODULES = 300;
const KEYS = 50;
const ROUNDS = 20;

function moduleValues(i: number): { staticValues: JsonObject; config: JsonObject } {
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

function schemaYaml(): { config: string; values: string } {
  const props: string[] = [];
  const configProps: string[] = [];
  for (let k = 0; k < KEYS; k++) {
    const key = `key${k}`;
    switch (k % 5) {
      case 0:
        props.push(`  ${key}: {type: string}`);
        break;
      case 1:
        props.push(`  ${key}: {type: number, minimum: 0}`);
        break;
      case 2:
        props.push(`  ${key}:\n    type: object\n    properties:\n      enabled: {type: boolean}\n      name: {type: string}\n      limits:\n        type: object\n        properties:\n          cpu: {type: string}\n          memory: {type: string}`);
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

const dir = mkdtempSync(join(tmpdir(), 'bench-values-'));
try {
  const schemas = schemaYaml();
  const scopes: { scope: ScopeValues; config: JsonObject }[] = [];
  const setupStart = performance.now();
  for (let i = 0; i < MODULES; i++) {
    const openapi = join(dir, `m${i}`, 'openapi');
    mkdirSync(openapi, { recursive: true });
    writeFileSync(join(openapi, 'config-values.yaml'), schemas.config);
    writeFileSync(join(openapi, 'values.yaml'), schemas.values);
    const key = `module${i}`;
    const scope = new ScopeValues(key, `module module${i}`, loadScopeSchemas(openapi));
    const v = moduleValues(i);
    scope.setStatic([{ source: { kind: 'file', file: `m${i}/values.yaml` }, values: v.staticValues }]);
    scopes.push({ scope, config: v.config });
  }
  const loadMs = performance.now() - setupStart;
  const compileStart = performance.now();
  for (const { scope } of scopes) scope.schemas.compileAll();
  const compileMs = performance.now() - compileStart;

  const run = () => {
    for (const { scope, config } of scopes) {
      scope.setConfig(config);
      scope.effective();
      scope.validateEffective();
      scope.checksum();
    }
  };
  const effectiveValues = scopes.map((s) => s.scope.effective());
  const baseline = () => {
    for (const v of effectiveValues) structuredClone(v);
  };
  for (let i = 0; i < 3; i++) {
    run();
    baseline();
  }
  let engineMs = 0;
  let baseMs = 0;
  for (let r = 0; r < ROUNDS; r++) {
    let t = performance.now();
    run();
    engineMs += performance.now() - t;
    t = performance.now();
    baseline();
    baseMs += performance.now() - t;
  }
  const perModuleEngine = (engineMs / ROUNDS / MODULES) * 1000;
  const perModuleBase = (baseMs / ROUNDS / MODULES) * 1000;
  const json = JSON.stringify(effectiveValues[0]).length;
  console.log(`bench/values: ${MODULES} modules x ${KEYS} keys (${json} bytes of JSON each), ${ROUNDS} rounds`);
  console.log(`  one-time schema load: ${(loadMs / MODULES).toFixed(2)} ms per module; compile (2 schemas, ajv): ${(compileMs / MODULES).toFixed(2)} ms per module`);
  console.log(`  compute + validate + checksum: ${perModuleEngine.toFixed(1)} µs per module`);
  console.log(`  structuredClone baseline:      ${perModuleBase.toFixed(1)} µs per module`);
  console.log(`  ratio: ${(perModuleEngine / perModuleBase).toFixed(2)}x (target <= 20x)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
