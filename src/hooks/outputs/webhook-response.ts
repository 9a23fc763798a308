/**
 * `$VALIDATING_RESPONSE_PATH` (also `$ADMISSION_RESPONSE_PATH`) and `$CONVERSION_RESPONSE_PATH`: the
 * answers of webhook hooks, read as shell-operator reads them (pkg/webhook/admission/response.go,
 * pkg/webhook/conversion/response.go). An admission response is `{"allowed", "message", "warnings",
 * "patch"}` where `patch` is a base64-encoded JSON patch (Go's []byte); a conversion response is
 * `{"convertedObjects": [...]}` or `{"failedMessage": "..."}`. An empty file is no answer (null).
 */
import { isPlainObject, type JsonObject } from '../../util/json.js';
import { HookOutputError } from './metrics.js';

export interface AdmissionResponse {
  allowed: boolean;
  message?: string;
  warnings?: string[];
  /** The JSON patch, base64-encoded, as the AdmissionReview response carries it. */
  patch?: string;
}

export interface ConversionResponse {
  failedMessage?: string;
  convertedObjects?: JsonObject[];
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new HookOutputError(`${what}: not JSON: ${(e as Error).message}`);
  }
}

/** Checks an admission answer (from the file or an in-process hook); `patch` may be base64 or the operations. */
export function toAdmissionResponse(value: unknown, what: string): AdmissionResponse {
  if (!isPlainObject(value)) throw new HookOutputError(`${what}: must be a JSON object like {"allowed": true}`);
  const out: AdmissionResponse = { allowed: false };
  if (value.allowed !== undefined && typeof value.allowed !== 'boolean') throw new HookOutputError(`${what}: "allowed" must be true or false`);
  out.allowed = value.allowed === true;
  if (value.message !== undefined && value.message !== null) {
    if (typeof value.message !== 'string') throw new HookOutputError(`${what}: "message" must be a string`);
    if (value.message !== '') out.message = value.message;
  }
  if (value.warnings !== undefined && value.warnings !== null) {
    if (!Array.isArray(value.warnings) || value.warnings.some((w) => typeof w !== 'string')) throw new HookOutputError(`${what}: "warnings" must be a list of strings`);
    if (value.warnings.length) out.warnings = value.warnings as string[];
  }
  if (value.patch !== undefined && value.patch !== null && value.patch !== '') {
    let ops: unknown;
    if (typeof value.patch === 'string') {
      if (!/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(value.patch)) throw new HookOutputError(`${what}: "patch" must be a base64-encoded JSON patch`);
      const decoded = Buffer.from(value.patch, 'base64').toString('utf8');
      ops = parseJson(decoded, `${what}: the decoded "patch"`);
    } else ops = value.patch;
    if (!Array.isArray(ops) || ops.some((op) => !isPlainObject(op) || typeof op.op !== 'string' || typeof op.path !== 'string')) {
      throw new HookOutputError(`${what}: "patch" must be a JSON patch: a list of {"op", "path", ...}`);
    }
    out.patch = Buffer.from(JSON.stringify(ops)).toString('base64');
  }
  return out;
}

export function toConversionResponse(value: unknown, what: string): ConversionResponse {
  if (!isPlainObject(value)) throw new HookOutputError(`${what}: must be a JSON object like {"convertedObjects": [...]}`);
  const out: ConversionResponse = {};
  if (value.failedMessage !== undefined && value.failedMessage !== null) {
    if (typeof value.failedMessage !== 'string') throw new HookOutputError(`${what}: "failedMessage" must be a string`);
    if (value.failedMessage !== '') out.failedMessage = value.failedMessage;
  }
  if (value.convertedObjects !== undefined && value.convertedObjects !== null) {
    if (!Array.isArray(value.convertedObjects) || value.convertedObjects.some((o) => !isPlainObject(o))) {
      throw new HookOutputError(`${what}: "convertedObjects" must be a list of objects`);
    }
    out.convertedObjects = value.convertedObjects as JsonObject[];
  }
  return out;
}

/** The file's text: null when empty (the hook gave no answer). */
export function parseAdmissionResponse(text: string, hook: string): AdmissionResponse | null {
  if (text.trim() === '') return null;
  const what = `$VALIDATING_RESPONSE_PATH of hook ${hook}`;
  return toAdmissionResponse(parseJson(text, what), what);
}

export function parseConversionResponse(text: string, hook: string): ConversionResponse | null {
  if (text.trim() === '') return null;
  const what = `$CONVERSION_RESPONSE_PATH of hook ${hook}`;
  return toConversionResponse(parseJson(text, what), what);
}
