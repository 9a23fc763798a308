/**
 * Just enough Kubernetes protobuf decoding for kubectl's imperative generators (`kubectl create
 * namespace|configmap|secret|serviceaccount`), which send `application/vnd.kubernetes.protobuf` bodies
 * and do not fall back to JSON: the `k8s\0` magic, a runtime.Unknown envelope, and the typed message.
 */
import { unsupportedMediaType, badRequest } from './errors.js';

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
      case 'Role':
      case 'ClusterRole':
        if (f.no === 2) (o.rules ??= []).push(policyRule(bytes(f)));
        break;
      default:
        throw unsupportedMediaType(`application/vnd.kubernetes.protobuf (kind ${kind} is not supported by the sandbox; send JSON)`);
    }
  }
  o.metadata ??= {};
  return o;
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
