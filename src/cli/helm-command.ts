/** The `helm template` command; the command itself is helm-template.ts, imported when it runs. */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';

export function registerHelm(program: Command): void {
  const helm = program.command('helm').description('Helm without a cluster: `helm template`');
  helm
    .command('template')
    .description('render a chart as Helm 3.19\'s `helm template` does: [NAME] CHART, -f/--values, --set, --set-string, --set-file, --set-json, --show-only ... (--help lists them)')
    .argument('[args...]', 'NAME, CHART and the flags of helm template')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (_args: string[], _opts: unknown, cmd: Command) => {
      // the implementation (Go templates, Helm) is loaded only when the command runs
      const { runHelmTemplate } = await import('./helm-template.js');
      process.exitCode = runHelmTemplate(cmd.args, {
        out: (t) => process.stdout.write(t),
        err: (t) => process.stderr.write(t),
        readStdin: () => readFileSync(0),
      });
    });
}
