/** The `render` command's flags; the command itself is render.ts, imported when it runs. */
import { Option, type Command } from 'commander';
import { ENV, fromEnv } from './env.js';
import type { RenderOptions } from './render.js';

export function registerRender(program: Command): void {
  program
    .command('render')
    .description(
      'compute values and enabled state as at start-up, without a cluster (static values.yaml files, the config file in ConfigMap form, schema defaults, enabled scripts), check the values for Helm, and print the manifests of each enabled module\'s release as `helm template` does',
    )
    .argument('[module...]', 'limit the printed modules to these names')
    .option('--values', 'print the values as JSON instead of the manifests: {"global", "enabledModules", "modules": {"<camelName>": ...}}')
    .addOption(new Option('--modules-dir <dirs>', 'modules dirs, ":"-separated (env ADDON_OPERATOR_MODULES_DIR or MODULES_DIR)').default(fromEnv(ENV.modulesDir, 'modules')))
    .addOption(
      new Option('--global-hooks-dir <dir>', 'global hooks dir; its openapi/ holds the global schemas (env ADDON_OPERATOR_GLOBAL_HOOKS_DIR or GLOBAL_HOOKS_DIR)').default(
        fromEnv(ENV.globalHooksDir, 'global-hooks'),
      ),
    )
    .option('--config <file>', 'config as a ConfigMap manifest or a bare map of ConfigMap data keys')
    .addOption(
      new Option('--unnumbered-modules-order <n>', 'order of modules without a numeric prefix (env ADDON_OPERATOR_UNNUMBERED_MODULES_ORDER)').default(
        fromEnv(ENV.unnumberedOrder, '1'),
      ),
    )
    .addOption(new Option('--tmp-dir <dir>', 'where enabled scripts get their temporary files (env ADDON_OPERATOR_TMP_DIR)').default(fromEnv(ENV.tmpDir, '') || undefined))
    .option('--enabled-script-timeout <duration>', 'time limit of each enabled script', '1m')
    .option('--debug', 'print stack traces of errors')
    .addOption(
      new Option('--namespace <ns>', "the releases' namespace, .Release.Namespace (env ADDON_OPERATOR_NAMESPACE)").default(fromEnv(['ADDON_OPERATOR_NAMESPACE'], '') || 'default'),
    )
    .action(async (only: string[], opts: RenderOptions) => {
      // the implementation (module loading, Helm rendering) is loaded only when the command runs
      const { runRender } = await import('./render.js');
      await runRender(only, opts);
    });
}
