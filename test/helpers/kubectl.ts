/** The machine's kubectl, for the tests that drive it (they skip themselves, saying why, without it). */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** `kubectl` in /usr/bin or on the PATH, or undefined. */
export function findKubectl(): string | undefined {
  for (const dir of ['/usr/bin', ...(process.env.PATH ?? '').split(delimiter)]) {
    const p = join(dir, 'kubectl');
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  return undefined;
}
