// `node --import <this file>`: every module URL the process resolves is appended to the file named by
// MODULE_TRACE (one per line), so that a test can tell which of the sources a process has loaded.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.MODULE_TRACE) appendFileSync(process.env.MODULE_TRACE, result.url + '\\n');
  return result;
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
