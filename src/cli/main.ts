#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=4
// The shebang's V8 setting (young generation semi-spaces of 4 MiB, V8's default is 16 on 64-bit hosts)
// keeps the operator's resident memory under its target (docs/performance.md, "Where the operator's
// memory goes"); `npm start` passes the same flag, and bench/memory and bench/soak start the operator
// with this line's flags. A command-line V8 flag wins over the same flag in NODE_OPTIONS.
import { buildProgram } from './program.js';
import { UserError, errorMessage } from '../util/errors.js';

const program = buildProgram();
const debug = process.argv.includes('--debug');
try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (debug || !(err instanceof UserError)) {
    console.error(err instanceof Error && debug ? err.stack : `Error: ${errorMessage(err)}`);
  } else {
    console.error(`Error: ${err.message}`);
  }
  process.exitCode = 1;
}
