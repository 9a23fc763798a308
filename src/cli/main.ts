#!/usr/bin/env node
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
