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
  const what = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : String(c.message))).join(', ');
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

export function unsupportedMediaType(contentType: string): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (got ${contentType || 'none'})`);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function forbidden(message: string): StatusError {
  return new StatusError(403, 'Forbidden', message);
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
