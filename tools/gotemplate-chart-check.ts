// Development check (needs the Go reference, tools/gotemplate-ref/build.sh): the templates of real
// charts rendered by this engine and by real Go text/template + Sprig on identical inputs, byte for
// byte. For each chart directory under each DIR, with its default values and each ci/*.yaml: the
// values are coalesced here (src/helm), then both engines render the chart's templates with the same
// top-level objects (.Values, .Release, .Chart, .Capabilities.KubeVersion as plain maps). Charts the
// reference cannot take are skipped: subcharts, `.Files`/`.Capabilities.APIVersions`/`.Subcharts`
// (methods of Helm's objects), and functions whose result changes between runs (random, keys, dates).
//
//   node --import tsx tools/gotemplate-chart-check.ts DIR...
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { renderSetWithGo } from './gotemplate-ref.js';
import { helmErrorMessage, renderChartFiles } from '../src/gotemplate/index.js';
import { coalesceValues, loadChart, processDependencies, type Chart } from '../src/helm/index.js';
import { parseYaml } from '../src/util/yaml.js';
import type { JsonObject } from '../src/util/json.js';

const UNSUPPORTED =
  /\.Files|APIVersions|\.Subcharts|\blookup\b|\bnow\b|\brand[A-Z]\w*|\bgen(CA|SelfSigned|Signed|PrivateKey)\w*|uuidv4|derivePassword|bcrypt|htpasswd|\bdate\w*/;

function topLevel(chart: Chart, values: JsonObject): Record<string, unknown> {
  const m = chart.metadata;
  return {
    Values: values,
    Release: { Name: 'release-name', Namespace: 'default', IsUpgrade: false, IsInstall: true, Revision: 1, Service: 'Helm' },
    Chart: {
      Name: m.name,
      Version: m.version,
      AppVersion: m.appVersion ?? '',
      Description: m.description ?? '',
      Type: m.type ?? '',
      Home: m.home ?? '',
      KubeVersion: m.kubeVersion ?? '',
      Annotations: m.annotations ?? {},
      IsRoot: true,
    },
    Capabilities: { KubeVersion: { Version: 'v1.34.0', Major: '1', Minor: '34', GitVersion: 'v1.34.0' } },
  };
}

let same = 0;
let different = 0;
let skipped = 0;
for (const root of process.argv.slice(2)) {
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    if (!existsSync(join(dir, 'Chart.yaml'))) continue;
    const ci = join(dir, 'ci');
    const valueFiles = [null, ...(existsSync(ci) ? readdirSync(ci).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(ci, f)) : [])];
    for (const vf of valueFiles) {
      let chart: Chart;
      let values: JsonObject;
      try {
        chart = loadChart(dir);
        const given = (vf ? (parseYaml(readFileSync(vf, 'utf8'), vf) ?? {}) : {}) as JsonObject;
        values = coalesceValues(processDependencies(chart, given), given);
      } catch {
        skipped++;
        continue;
      }
      const templates: Record<string, string> = {};
      for (const t of chart.templates) templates[`${chart.metadata.name}/${t.name}`] = t.data.toString('utf8');
      if (chart.dependencies.length || chart.metadata.dependencies?.length || Object.values(templates).some((t) => UNSUPPORTED.test(t))) {
        skipped++;
        continue;
      }
      const top = topLevel(chart, values);
      const go = renderSetWithGo({ templates, values: top });
      if (go === null) throw new Error('the Go reference is not built: tools/gotemplate-ref/build.sh');
      let ours: { rendered?: Record<string, string>; error?: string };
      try {
        ours = { rendered: renderChartFiles(templates, top) };
      } catch (e) {
        ours = { error: helmErrorMessage(e) };
      }
      const label = `${dir} [${vf ? `ci/${basename(vf)}` : 'default values'}]`;
      if ('error' in go) {
        if (go.error === ours.error) same++;
        else {
          different++;
          console.log(`DIFF ${label}: Go fails with ${JSON.stringify(go.error.slice(0, 300))}, here ${JSON.stringify((ours.error ?? 'no error').slice(0, 300))}`);
        }
        continue;
      }
      const keys = Object.keys(go.rendered);
      const bad = ours.rendered ? keys.find((k) => go.rendered[k] !== ours.rendered![k]) : keys[0];
      if (bad === undefined && ours.rendered && Object.keys(ours.rendered).length === keys.length) {
        same++;
        continue;
      }
      different++;
      if (!ours.rendered || bad === undefined) {
        console.log(`DIFF ${label}: Go renders, here ${JSON.stringify((ours.error ?? 'other files').slice(0, 300))}`);
        continue;
      }
      const a = go.rendered[bad]!;
      const b = ours.rendered[bad] ?? '';
      let i = 0;
      while (i < a.length && a[i] === b[i]) i++;
      console.log(`DIFF ${label} ${bad} at ${i}:\n  Go:   ${JSON.stringify(a.slice(Math.max(0, i - 80), i + 80))}\n  here: ${JSON.stringify(b.slice(Math.max(0, i - 80), i + 80))}`);
    }
  }
}
console.log(`${same} renders identical to Go, ${different} different, ${skipped} skipped`);
process.exitCode = different ? 1 : 0;
