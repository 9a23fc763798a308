/**
 * The `review` of a webhook binding context as shell-operator writes it: it decodes the API server's
 * AdmissionReview or ConversionReview into the k8s.io/api structs and writes `{"request": ...}` from
 * them, so the request's fields come in the structs' declaration order, omitempty ones left out when
 * empty, fields the structs do not know dropped, and the objects (runtime.RawExtension) as received.
 */
import { inOwnOrder, isPlainObject, sortKeysGo, type JsonObject, type JsonValue } from '../util/json.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const fields = (v: unknown): JsonObject => (isPlainObject(v) ? v : {});
/** A RawExtension: the JSON as given, `null` when none was. */
const raw = (v: JsonValue | undefined): JsonValue => (v === undefined ? null : v);

/** metav1.GroupVersionKind / GroupVersionResource: no omitempty. */
function groupVersion(v: unknown, last: 'kind' | 'resource'): JsonObject {
  const o = fields(v);
  return { group: str(o.group), version: str(o.version), [last]: str(o[last]) };
}

/** authenticationv1.UserInfo: every field omitempty; `extra` is a map (sorted keys). */
function userInfo(v: unknown): JsonObject {
  const o = fields(v);
  const u: JsonObject = {};
  if (str(o.username)) u.username = str(o.username);
  if (str(o.uid)) u.uid = str(o.uid);
  if (Array.isArray(o.groups) && o.groups.length) u.groups = o.groups;
  const extra = fields(o.extra);
  const keys = sortKeysGo(Object.keys(extra));
  if (keys.length) u.extra = Object.fromEntries(keys.map((k) => [k, extra[k]!]));
  return u;
}

/** `{"request": AdmissionRequest}` in admission/v1's field order. */
export function admissionReviewForHook(request: JsonObject): JsonObject {
  const r: JsonObject = { uid: str(request.uid), kind: groupVersion(request.kind, 'kind'), resource: groupVersion(request.resource, 'resource') };
  if (str(request.subResource)) r.subResource = str(request.subResource);
  if (isPlainObject(request.requestKind)) r.requestKind = groupVersion(request.requestKind, 'kind');
  if (isPlainObject(request.requestResource)) r.requestResource = groupVersion(request.requestResource, 'resource');
  if (str(request.requestSubResource)) r.requestSubResource = str(request.requestSubResource);
  if (str(request.name)) r.name = str(request.name);
  if (str(request.namespace)) r.namespace = str(request.namespace);
  r.operation = str(request.operation);
  r.userInfo = userInfo(request.userInfo);
  r.object = raw(request.object);
  r.oldObject = raw(request.oldObject);
  if (typeof request.dryRun === 'boolean') r.dryRun = request.dryRun;
  r.options = raw(request.options);
  return inOwnOrder({ request: r });
}

/** `{"request": ConversionRequest}` in apiextensions/v1's field order, with the objects of this step. */
export function conversionReviewForHook(request: JsonObject, objects: readonly JsonValue[]): JsonObject {
  return inOwnOrder({ request: { uid: str(request.uid), desiredAPIVersion: str(request.desiredAPIVersion), objects: [...objects] } });
}
