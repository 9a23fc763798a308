#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=4
// The shebang's settings keep the operator's resident memory under its target (docs/operator.md,
// "Node's flags"): glibc's mmap threshold kept at its initial 128 KiB (raised, malloc's arenas keep the
// large blocks freed after a burst) and V8's young generation semi-spaces of 4 MiB (V8's default is 16
// on 64-bit hosts). `npm start` sets the same, and the benches start the operator with this line's
// environment and flags. A command-line V8 flag wins over the same flag in NODE_OPTIONS.
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
