/**
 * Just enough Kubernetes protobuf decoding for kubectl's imperative generators (`kubectl create
 * namespace|configmap|secret|serviceaccount|role|clusterrole|deployment|service`), which send `application/vnd.kubernetes.protobuf` bodies
 * and do not fall back to JSON: the `k8s\0` magic, a runtime.Unknown envelope, and the typed message.
 */
import { StatusError, badRequest } from './errors.js';

export function isProtobuf(contentType: string): boolean {
  return contentType === 'application/vnd.kubernetes.protobuf';
}

type Field = { no: number; wire: number; value: bigint | Buffer };

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw badRequest('truncated protobuf varint');
    const b = buf[pos++];
    result |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [result, pos];
    shift += 7n;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [tag, p1] = readVarint(buf, pos);
    pos = p1;
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const [v, p2] = readVarint(buf, pos);
      pos = p2;
      out.push({ no, wire, value: v });
    } else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      const end = p2 + Number(len);
      if (end > buf.length) throw badRequest('truncated protobuf field');
      out.push({ no, wire, value: buf.subarray(p2, end) });
      pos = end;
    } else if (wire === 1) {
      out.push({ no, wire, value: buf.subarray(pos, pos + 8) });
      pos += 8;
    } else if (wire === 5) {
      out.push({ no, wire, value: buf.subarray(pos, pos + 4) });
      pos += 4;
    } else throw badRequest(`unsupported protobuf wire type ${wire}`);
  }
  return out;
}

const str = (f: Field): string => (f.value as Buffer).toString('utf8');
const bytes = (f: Field): Buffer => f.value as Buffer;
const num = (f: Field): number => Number(f.value as bigint);

function mapEntry(f: Field, asBytes: boolean): [string, string] {
  let k = '';
  let v = '';
  for (const e of fields(bytes(f))) {
    if (e.no === 1) k = str(e);
    else if (e.no === 2) v = asBytes ? bytes(e).toString('base64') : str(e);
  }
  return [k, v];
}

function objectMeta(buf: Buffer): Record<string, unknown> {
  const m: Record<string, any> = {};
  for (const f of fields(buf)) {
    switch (f.no) {
      case 1: m.name = str(f); break;
      case 2: m.generateName = str(f); break;
      case 3: m.namespace = str(f); break;
      case 6: m.resourceVersion = str(f); break;
      case 11: { const [k, v] = mapEntry(f, false); (m.labels ??= {})[k] = v; break; }
      case 12: { const [k, v] = mapEntry(f, false); (m.annotations ??= {})[k] = v; break; }
      case 14: (m.finalizers ??= []).push(str(f)); break;
      default: break;
    }
  }
  return m;
}

function policyRule(buf: Buffer): Record<string, unknown> {
  const r: Record<string, any> = {};
  const names = ['', 'verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'];
  for (const f of fields(buf)) if (names[f.no]) (r[names[f.no]] ??= []).push(str(f));
  return r;
}

function stringMap(target: Record<string, any>, key: string, f: Field): void {
  const [k, v] = mapEntry(f, false);
  (target[key] ??= {})[k] = v;
}

function labelSelector(buf: Buffer): Record<string, unknown> {
  const s: Record<string, any> = {};
  for (const f of fields(buf)) if (f.no === 1) stringMap(s, 'matchLabels', f);
  return s;
}

function container(buf: Buffer): Record<string, unknown> {
  const c: Record<string, any> = {};
  for (const f of fields(buf)) {
    switch (f.no) {
      case 1: c.name = str(f); break;
      case 2: c.image = str(f); break;
      case 3: (c.command ??= []).push(str(f)); break;
      case 4: (c.args ??= []).push(str(f)); break;
      case 5: c.workingDir = str(f); break;
      case 6: {
        const p: Record<string, any> = {};
        for (const x of fields(bytes(f))) {
          if (x.no === 1) p.name = str(x);
          else if (x.no === 2) p.hostPort = num(x);
          else if (x.no === 3) p.containerPort = num(x);
          else if (x.no === 4) p.protocol = str(x);
        }
        (c.ports ??= []).push(p);
        break;
      }
      case 7: {
        const e: Record<string, any> = {};
        for (const x of fields(bytes(f))) {
          if (x.no === 1) e.name = str(x);
          else if (x.no === 2) e.value = str(x);
        }
        (c.env ??= []).push(e);
        break;
      }
      case 8: c.resources = {}; break;
      case 13: c.terminationMessagePath = str(f); break;
      case 14: c.imagePullPolicy = str(f); break;
      case 20: c.terminationMessagePolicy = str(f); break;
      default: break;
    }
  }
  return c;
}

function podSpec(buf: Buffer): Record<string, unknown> {
  const s: Record<string, any> = {};
  for (const f of fields(buf)) {
    if (f.no === 2) (s.containers ??= []).push(container(bytes(f)));
    else if (f.no === 20) (s.initContainers ??= []).push(container(bytes(f)));
    else if (f.no === 3) s.restartPolicy = str(f);
    else if (f.no === 8) s.serviceAccountName = str(f);
  }
  s.containers ??= [];
  return s;
}

function podTemplate(buf: Buffer): Record<string, unknown> {
  const t: Record<string, any> = {};
  for (const f of fields(buf)) {
    if (f.no === 1) t.metadata = objectMeta(bytes(f));
    else if (f.no === 2) t.spec = podSpec(bytes(f));
  }
  return t;
}

function deploymentSpec(buf: Buffer): Record<string, unknown> {
  const s: Record<string, any> = {};
  for (const f of fields(buf)) {
    switch (f.no) {
      case 1: s.replicas = num(f); break;
      case 2: s.selector = labelSelector(bytes(f)); break;
      case 3: s.template = podTemplate(bytes(f)); break;
      case 4: {
        const st: Record<string, any> = {};
        for (const x of fields(bytes(f))) if (x.no === 1) st.type = str(x);
        s.strategy = st;
        break;
      }
      case 5: s.minReadySeconds = num(f); break;
      default: break;
    }
  }
  return s;
}

function serviceSpec(buf: Buffer): Record<string, unknown> {
  const s: Record<string, any> = {};
  for (const f of fields(buf)) {
    switch (f.no) {
      case 1: {
        const p: Record<string, any> = {};
        for (const x of fields(bytes(f))) {
          if (x.no === 1) p.name = str(x);
          else if (x.no === 2) p.protocol = str(x);
          else if (x.no === 3) p.port = num(x);
          else if (x.no === 5) p.nodePort = num(x);
          else if (x.no === 4) {
            let type = 0;
            let intVal = 0;
            let strVal = '';
            for (const y of fields(bytes(x))) {
              if (y.no === 1) type = num(y);
              else if (y.no === 2) intVal = num(y);
              else if (y.no === 3) strVal = str(y);
            }
            p.targetPort = type === 1 ? strVal : intVal;
          }
        }
        (s.ports ??= []).push(p);
        break;
      }
      case 2: stringMap(s, 'selector', f); break;
      case 3: s.clusterIP = str(f); break;
      case 4: s.type = str(f); break;
      case 10: s.externalName = str(f); break;
      default: break;
    }
  }
  return s;
}

function typed(apiVersion: string, kind: string, raw: Buffer): Record<string, unknown> {
  const o: Record<string, any> = { apiVersion, kind };
  for (const f of fields(raw)) {
    if (f.no === 1 && f.wire === 2) {
      o.metadata = objectMeta(bytes(f));
      continue;
    }
    switch (kind) {
      case 'Namespace':
        if (f.no === 2) for (const s of fields(bytes(f))) if (s.no === 1) ((o.spec ??= {}).finalizers ??= []).push(str(s));
        break;
      case 'ConfigMap':
        if (f.no === 2) { const [k, v] = mapEntry(f, false); (o.data ??= {})[k] = v; }
        else if (f.no === 3) { const [k, v] = mapEntry(f, true); (o.binaryData ??= {})[k] = v; }
        else if (f.no === 4) o.immutable = num(f) !== 0;
        break;
      case 'Secret':
        if (f.no === 2) { const [k, v] = mapEntry(f, true); (o.data ??= {})[k] = v; }
        else if (f.no === 3) o.type = str(f);
        else if (f.no === 4) { const [k, v] = mapEntry(f, false); (o.stringData ??= {})[k] = v; }
        else if (f.no === 5) o.immutable = num(f) !== 0;
        break;
      case 'ServiceAccount':
        if (f.no === 4) o.automountServiceAccountToken = num(f) !== 0;
        break;
      case 'Deployment':
        if (f.no === 2) o.spec = deploymentSpec(bytes(f));
        break;
      case 'Service':
        if (f.no === 2) o.spec = serviceSpec(bytes(f));
        break;
      case 'SelfSubjectAccessReview':
      case 'SubjectAccessReview':
        break; // answered without looking at the request
      case 'Role':
      case 'ClusterRole':
        if (f.no === 2) (o.rules ??= []).push(policyRule(bytes(f)));
        break;
      default:
        throw new StatusError(415, 'UnsupportedMediaType', `the sandbox does not decode protobuf bodies of kind ${kind}; send JSON or YAML (kubectl apply -f, kubectl create -f)`);
    }
  }
  o.metadata ??= {};
  return prune(o) as Record<string, unknown>;
}

/** Go writes zero values of non-pointer fields; JSON would have omitted them. */
const KEEP_ZERO = new Set(['replicas', 'data', 'binaryData', 'stringData']);

function prune(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => prune(x));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (KEEP_ZERO.has(k) || key === 'data' || key === 'stringData' || key === 'labels' || key === 'annotations' || key === 'matchLabels' || key === 'selector') {
        out[k] = prune(x, k);
        continue;
      }
      if (x === '' || x === 0) continue;
      out[k] = prune(x, k);
    }
    return out;
  }
  return v;
}

/** Decodes a protobuf-encoded object of one of the supported kinds into its JSON form. */
export function decodeProtobufObject(buf: Buffer): Record<string, unknown> {
  if (buf.length < 4 || buf.readUInt32BE(0) !== 0x6b387300) throw badRequest('protobuf body without the k8s magic prefix');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = Buffer.alloc(0);
  for (const f of fields(buf.subarray(4))) {
    if (f.no === 1) {
      for (const t of fields(bytes(f))) {
        if (t.no === 1) apiVersion = str(t);
        else if (t.no === 2) kind = str(t);
      }
    } else if (f.no === 2) raw = bytes(f);
  }
  return typed(apiVersion, kind, raw);
}
