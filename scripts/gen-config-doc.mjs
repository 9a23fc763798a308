#!/usr/bin/env node
// Writes docs/configuration.md from the code: every command of `addon-operator`, its flags as
// commander defines them (name, default, description) and the environment variables each flag
// falls back to, recorded while the flags are defined (process.env is replaced by a recorder, so the
// defaults shown are the built-in ones whatever this shell has set). Variables read while the
// operator runs rather than from a flag are listed from RUNTIME_ENV below; test/docs/configuration
// checks that every variable name in src/cli and src/kube/load-kubeconfig.ts is in the page. Needs dist/
// (npm run build); the test makes the page from the sources.
//
//   node scripts/gen-config-doc.mjs           write it
//   node scripts/gen-config-doc.mjs --check   exit 1 when docs/configuration.md is stale
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(root, 'docs/configuration.md');

/** Read while running, not as a flag's default: [names, what, used by]. */
export const RUNTIME_ENV = [
  [['ADDON_OPERATOR_HA'], '`true`: HA mode, leader election on the Lease `addon-operator-leader-election` (docs/operating.md "High availability")', 'start'],
  [['ADDON_OPERATOR_POD'], 'with HA: the pod name (`fieldRef: metadata.name`); required', 'start'],
  [['ADDON_OPERATOR_LISTEN_ADDRESS'], "with HA: the pod IP (`fieldRef: status.podIP`), part of the leader's identity; required", 'start'],
  [['ADDON_OPERATOR_NAMESPACE'], 'with HA: the namespace of the Lease; required', 'start'],
  [['ADDON_OPERATOR_HA_LEASE_DURATION', 'ADDON_OPERATOR_HA_RENEW_DEADLINE', 'ADDON_OPERATOR_HA_RETRY_PERIOD'], 'with HA: `35s`, `30s`, `10s` (the Go timings)', 'start'],
  [['KUBECONFIG'], 'kubeconfig files, `:`-separated and merged, when `--kube-config` is not given', 'start'],
  [['KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'], "in a pod: the API server, with the service account's token", 'start'],
  [['DEBUG_UNIX_SOCKET'], 'the debug socket when `--debug-unix-socket` is not given', 'the debug commands'],
  [['HELM_NAMESPACE'], '`.Release.Namespace` when `--namespace` is not given', 'helm template'],
];

/** The program with the environment each flag definition reads recorded per option. */
async function definitions(buildProgram) {
  const reads = [];
  const recorder = new Proxy({}, { get: (_t, name) => (typeof name === 'string' && reads.push(name), undefined), has: () => false, ownKeys: () => [], getOwnPropertyDescriptor: () => undefined });
  const envOf = new Map();
  const claim = (name) => {
    const found = [...new Set(reads.filter((n) => /^[A-Z][A-Z0-9_]*$/.test(n)))];
    reads.length = 0;
    if (found.length) envOf.set(name, found);
  };
  const origOption = Command.prototype.option;
  const origAdd = Command.prototype.addOption;
  // fromEnv(...) is evaluated as an argument: the names read since the last definition are this one's
  Command.prototype.addOption = function (opt) {
    claim(opt);
    return origAdd.call(this, opt);
  };
  Command.prototype.option = function (...args) {
    const before = this.options.length;
    const pending = [...reads];
    reads.length = 0;
    const r = origOption.apply(this, args);
    if (pending.length) envOf.set(this.options[before], [...new Set(pending.filter((n) => /^[A-Z][A-Z0-9_]*$/.test(n)))]);
    return r;
  };
  const saved = process.env;
  process.env = recorder;
  try {
    return { program: buildProgram(), envOf };
  } finally {
    process.env = saved;
    Command.prototype.option = origOption;
    Command.prototype.addOption = origAdd;
  }
}

const code = (s) => '`' + String(s).replace(/\|/g, '\\|') + '`';
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

function commandPath(c) {
  return c.parent ? `${commandPath(c.parent)} ${c.name()}` : c.name();
}

function section(c, envOf) {
  const lines = [`## \`${commandPath(c)}\``, ''];
  const args = c.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`));
  lines.push(`${c.description()}.`, '');
  lines.push('```', `${commandPath(c)}${c.options.length ? ' [flags]' : ''}${args.length ? ' ' + args.join(' ') : ''}`, '```', '');
  const opts = c.options.filter((o) => o.long !== '--help');
  if (opts.length) {
    lines.push('| flag | environment | default | |', '| --- | --- | --- | --- |');
    for (const o of opts) {
      const env = (envOf.get(o) ?? []).map(code).join(', ');
      const def = o.defaultValue === undefined || o.defaultValue === '' || o.defaultValue === false ? '' : Array.isArray(o.defaultValue) ? (o.defaultValue.length ? code(o.defaultValue.join(' ')) : '') : code(o.defaultValue);
      const choices = o.argChoices ? ` (${o.argChoices.join(', ')})` : '';
      lines.push(`| ${code(o.flags)} | ${env} | ${def} | ${cell(o.description)}${choices}${o.hidden ? ' (not in --help)' : ''} |`);
    }
    lines.push('');
  }
  return lines;
}

/**
 * The page. The CLI below makes it from dist/ (after `npm run build`); the test passes the sources'
 * buildProgram and runHelmTemplate, so that a page made from a stale build fails it.
 */
export async function configurationDoc(impl = undefined) {
  // imported before the recorder goes in: module loading reads variables of its own
  const { buildProgram, runHelmTemplate } = impl ?? { ...(await import('../dist/cli/program.js')), ...(await import('../dist/cli/helm-template.js')) };
  const { program, envOf } = await definitions(buildProgram);
  const lines = [
    '# Configuration reference',
    '',
    '<!-- GENERATED by scripts/gen-config-doc.mjs from the commands\' definitions in src/cli: do not edit. -->',
    '',
    'Every command of `addon-operator` with its flags. A flag wins over its environment variables; of',
    'the variables, the first one set wins (the `ADDON_OPERATOR_` names and the bare names of the Go',
    'project\'s documentation are both read). Durations are Go durations (`30s`, `10m`, `1h30m`). Every',
    'command also takes `--help`, and `--debug` prints the stack trace of an error. What the operator',
    'does with these settings: docs/operator.md; endpoints and metrics: docs/operating.md.',
    '',
  ];
  const all = (c) => [c, ...c.commands.flatMap(all)];
  const commands = all(program).filter((c) => c !== program && (c.commands.length === 0 || c.options.length > 0));
  lines.push('Commands: ' + commands.map((c) => `[\`${commandPath(c).replace(/^addon-operator /, '')}\`](#${commandPath(c).replace(/ /g, '-')})`).join(', ') + '.', '');
  for (const c of commands) {
    if (c.name() === 'template' && c.parent?.name() === 'helm') {
      lines.push(`## \`${commandPath(c)}\``, '', `${c.description()}.`, '', 'Its flags are Helm\'s own (parsed as Helm parses them, not by commander):', '');
      let out = '';
      runHelmTemplate(['--help'], { out: (t) => (out += t), err: () => {}, readStdin: () => Buffer.alloc(0) });
      lines.push('```', out.trimEnd(), '```', '');
      continue;
    }
    if (c.name() === 'jq') {
      lines.push(`## \`${commandPath(c)}\``, '', `${c.description()}.`, '', 'Its options are jq 1.8\'s (`addon-operator jq --help`; docs/jq.md).', '');
      continue;
    }
    lines.push(...section(c, envOf));
  }
  lines.push('## Environment read while running', '', 'Not flag defaults: read by the command when it runs.', '', '| variable | | used by |', '| --- | --- | --- |');
  for (const [names, what, by] of RUNTIME_ENV) lines.push(`| ${names.map(code).join(', ')} | ${what} | ${by} |`);
  lines.push('');
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await configurationDoc();
  if (process.argv.includes('--check')) {
    let old = '';
    try {
      old = readFileSync(OUT, 'utf8');
    } catch {
      // missing is stale
    }
    if (old !== text) {
      console.error('docs/configuration.md is stale: run node scripts/gen-config-doc.mjs');
      process.exit(1);
    }
  } else {
    writeFileSync(OUT, text);
  }
}
