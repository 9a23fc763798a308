/**
 * The Pod subresources that stream from a container (log, exec, attach, portforward): the sandbox runs
 * no containers, so they answer at once with a clear 400 instead of a 404 or a hang.
 */
import { StatusError } from './errors.js';

const STREAMS: Record<string, string> = {
  log: 'logs are',
  exec: 'exec is',
  attach: 'attach is',
  portforward: 'port-forward is',
};

/** The error for `pods/NAME/SUB` when SUB is a stream subresource, else undefined. */
export function podStreamError(name: string, sub: string): StatusError | undefined {
  const what = STREAMS[sub];
  if (!what) return undefined;
  return new StatusError(
    400,
    'BadRequest',
    `pod ${name}: ${what} not supported by the addon-operator sandbox: its Pods are simulated and no container runs (see docs/sandbox.md, "Simulated controllers")`,
  );
}
