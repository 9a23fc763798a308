import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { registerJq } from './jq.js';
import { registerRender } from './render.js';
import { registerSandboxCommand } from './sandbox.js';
import { registerStart } from './start.js';
import { registerDebugCommands } from './debug.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function buildProgram(): Command {
  const program = new Command('addon-operator')
    .description('Manages cluster add-ons as modules: a Helm chart, hooks and layered, validated values.')
    .showHelpAfterError()
    .configureOutput({ outputError: (str, write) => write(str) });

  program
    .command('version')
    .description('print the version')
    .action(() => {
      console.log(`addon-operator ${pkg.version}`);
    });

  registerStart(program);
  registerRender(program);
  registerSandboxCommand(program);
  registerJq(program);
  registerDebugCommands(program);

  return program;
}
