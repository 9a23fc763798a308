import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { registerJq } from './jq.js';
import { registerRender } from './render-command.js';
import { registerSandboxCommand } from './sandbox.js';
import { registerStart } from './start.js';
import { registerDebugCommands } from './debug.js';
import { registerHelm } from './helm-command.js';
import { nearestName } from './nearest-name.js';
import { UserError } from '../util/errors.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function buildProgram(): Command {
  const program = new Command('addon-operator')
    .description('Manages cluster add-ons as modules: a Helm chart, hooks and layered, validated values.')
    .version(`addon-operator ${pkg.version}`, '--version', 'print the version')
    .showHelpAfterError()
    .configureOutput({ outputError: (str, write) => write(str) });

  program
    .command('version')
    .description('print the version')
    .action(() => {
      console.log(`addon-operator ${pkg.version}`);
    });

  const start = registerStart(program);
  registerRender(program);
  registerHelm(program);
  registerSandboxCommand(program);
  registerJq(program);
  registerDebugCommands(program);

  const commands = program.commands.map((c) => c.name());
  const unknownCommand = (word: string): UserError => {
    const near = nearestName(word, commands);
    return new UserError(`unknown command ${JSON.stringify(word)}${near ? `; did you mean "${near}"?` : ''} (commands: ${commands.join(', ')})`);
  };
  // an unknown command reaches the default command `start` as its first argument, before start's
  // options are parsed (which would blame the first option after it, e.g. `rendr --values`)
  program.hook('preSubcommand', (root, sub) => {
    const first = root.args[0];
    if (sub === start && first !== undefined && first !== 'start' && !first.startsWith('-')) throw unknownCommand(first);
  });
  // a stray argument (or an unknown command after an option of `start`) is an error that names it
  // and lists the commands
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const c of all(program)) c.allowExcessArguments(true);
  program.hook('preAction', (_root, action) => {
    const declared = action.registeredArguments;
    if (declared.at(-1)?.variadic) return;
    const stray = action.args.slice(declared.length);
    if (stray.length === 0) return;
    const explicit = action !== start || process.argv.slice(2).includes('start');
    throw explicit
      ? new UserError(`unexpected argument ${JSON.stringify(stray[0])} for "${commandPath(action)}" (commands: ${commands.join(', ')})`)
      : unknownCommand(stray[0]!);
  });

  return program;
}

function commandPath(c: Command): string {
  return c.parent ? `${commandPath(c.parent)} ${c.name()}` : c.name();
}
