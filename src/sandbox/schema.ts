/**
 * Validation of custom resources against the openAPIV3Schema of their CRD version, as the API server
 * does (422 Invalid with one cause per problem). Kubernetes' x-kubernetes-* keywords are accepted and,
 * except for int-or-string, not interpreted; formats are not checked.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { invalid, type StatusCause } from './errors.js';
import type { ResourceType } from './registry.js';

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, validateSchema: false });

const compiled = new WeakMap<object, ValidateFunction | null>();

function prepare(schema: any): any {
  if (Array.isArray(schema)) return schema.map(prepare);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'x-kubernetes-int-or-string' && v === true) continue;
    out[k] = typeof v === 'object' ? prepare(v) : v;
  }
  if (schema['x-kubernetes-int-or-string'] === true && !schema.anyOf && !schema.oneOf) {
    delete out.type;
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  // metadata is validated by the API server itself, not by the CRD's schema
  if (out.properties && typeof out.properties === 'object' && (out.properties as any).metadata) {
    out.properties = { ...(out.properties as object), metadata: { type: 'object' } };
  }
  return out;
}

function validatorFor(schema: object): ValidateFunction | null {
  let v = compiled.get(schema);
  if (v === undefined) {
    try {
      v = ajv.compile(prepare(schema));
    } catch {
      v = null; // a schema ajv cannot read is not enforced
    }
    compiled.set(schema, v);
  }
  return v;
}

function field(e: ErrorObject): string {
  const path = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const p of path) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  if (e.keyword === 'required') out += (out ? '.' : '') + String((e.params as any).missingProperty);
  return out || '<root>';
}

function valueAt(obj: unknown, pointer: string): unknown {
  let cur: any = obj;
  for (const p of pointer.split('/').slice(1)) cur = cur?.[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  return cur;
}

/** Throws 422 Invalid when a custom resource does not match its version's schema. */
export function validateCustomResource(t: ResourceType, version: string, o: any): void {
  const schema = t.schemas?.[version];
  if (!schema || typeof schema !== 'object') return;
  const validate = validatorFor(schema);
  if (!validate || validate(o)) return;
  const causes: StatusCause[] = [];
  for (const e of validate.errors ?? []) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
    const f = field(e);
    if (e.keyword === 'required') {
      causes.push({ type: 'FieldValueRequired', field: f, message: 'Required value' });
    } else if (e.keyword === 'enum') {
      const allowed = ((e.params as any).allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ');
      causes.push({ type: 'FieldValueNotSupported', field: f, message: `Unsupported value: ${JSON.stringify(valueAt(o, e.instancePath))}: supported values: ${allowed}` });
    } else {
      const msg = e.keyword === 'type' ? `${f} in body must be of type ${(e.params as any).type}: "${typeof valueAt(o, e.instancePath)}"` : `${f} in body ${e.message}`;
      causes.push({ type: 'FieldValueInvalid', field: f, message: `Invalid value: ${JSON.stringify(valueAt(o, e.instancePath))}: ${msg}` });
    }
  }
  if (causes.length) throw invalid(t.group, t.kind, String(o?.metadata?.name ?? ''), causes);
}
