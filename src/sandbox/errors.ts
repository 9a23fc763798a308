/** Kubernetes `Status` errors as the API server returns them. */

export interface StatusCause {
  type?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** An error that the HTTP layer turns into a Kubernetes Status response. */
export class StatusError extends Error {
  override name = 'StatusError';
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    const s: Record<string, unknown> = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) s.details = this.details;
    return s;
  }
}

/** `deployments.apps` or `configmaps` (core group) as the API server names a resource in messages. */
export function groupResource(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

export function notFound(group: string, resource: string, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${groupResource(group, resource)} "${name}" not found`, {
    name,
    group: group || undefined,
    kind: resource,
  });
}

export function alreadyExists(group: string, resource: string, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${groupResource(group, resource)} "${name}" already exists`, {
    name,
    group: group || undefined,
    kind: resource,
  });
}

export function conflict(group: string, resource: string, name: string, why: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${groupResource(group, resource)} "${name}": ${why}`,
    { name, group: group || undefined, kind: resource },
  );
}

export function invalid(group: string, kind: string, name: string, causes: StatusCause[]): StatusError {
  // as Go's utilerrors.Aggregate prints a list: one error as is, several in brackets
  const list = [...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message}` : String(c.message))))];
  const what = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${kind}${group ? '.' + group : ''} "${name}" is invalid: ${what}`, {
    name,
    group: group || undefined,
    kind,
    causes: causes.map((c) => ({ type: c.type ?? 'FieldValueInvalid', message: c.message, field: c.field })),
  });
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function methodNotAllowed(message = 'the server does not allow this method on the requested resource'): StatusError {
  return new StatusError(405, 'MethodNotAllowed', message);
}

/** Content types the API server accepts for PATCH of built-in kinds (custom resources: no strategic merge). */
export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
/** Content types accepted for request bodies of create and update. */
export const BODY_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** 415, with the API server's message listing what it accepts. */
export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

/** `configmaps "x" is forbidden: why`, as the API server words a refusal. */
export function forbidden(group: string, resource: string, name: string, why: string): StatusError {
  const what = name ? `${groupResource(group, resource)} "${name}"` : groupResource(group, resource);
  return new StatusError(403, 'Forbidden', `${what} is forbidden: ${why}`, { name: name || undefined, group: group || undefined, kind: resource });
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function tooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`);
}

export function tooManyRequests(): StatusError {
  return new StatusError(429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later', {
    retryAfterSeconds: 1,
  });
}
