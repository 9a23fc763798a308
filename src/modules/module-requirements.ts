/**
 * Checks the graph that module.yaml `requirements.modules` draws between the discovered modules:
 * every required module exists (an `!optional` one may be absent) and no module requires itself,
 * directly or through others. Returns the problems, each naming the file and the key.
 */
import type { ModuleRequirement } from './module-yaml.js';

interface Node {
  name: string;
  dir: string;
  definitionFile?: string;
  requires: readonly ModuleRequirement[];
}

const keyOf = (r: ModuleRequirement) => `requirements.modules.${r.module}`;

export function checkRequirements(modules: readonly Node[]): string[] {
  const byName = new Map(modules.map((m) => [m.name, m]));
  const problems: string[] = [];
  for (const m of modules) {
    for (const r of m.requires) {
      if (byName.has(r.module) || r.optional) continue;
      problems.push(`${m.definitionFile ?? m.dir}: ${keyOf(r)}: requires module "${r.module}", which is not in the modules dirs`);
    }
  }
  // cycles: depth-first over the edges to present modules; a grey node met again closes a cycle
  const state = new Map<string, 'grey' | 'black'>();
  const path: { node: Node; via?: ModuleRequirement }[] = [];
  const reported = new Set<string>();
  const visit = (node: Node, via?: ModuleRequirement): void => {
    state.set(node.name, 'grey');
    path.push({ node, ...(via ? { via } : {}) });
    for (const r of node.requires) {
      const next = byName.get(r.module);
      if (!next) continue;
      const s = state.get(next.name);
      if (s === 'grey') {
        const start = path.findIndex((p) => p.node.name === next.name);
        // each edge of the cycle: the module that requires, and its requirement
        const cycle = path.slice(start).map((p, i, rest) => ({ from: p.node, req: i + 1 < rest.length ? rest[i + 1]!.via! : r }));
        const key = cycle.map((c) => c.from.name).sort().join(',');
        if (!reported.has(key)) {
          reported.add(key);
          const names = [...cycle.map((c) => c.from.name), next.name].join(' → ');
          const where = cycle.map((c) => `${c.from.definitionFile ?? c.from.dir} ${keyOf(c.req)}`).join(', ');
          problems.push(`module requirements form a cycle: ${names} (${where})`);
        }
      } else if (s === undefined) {
        visit(next, r);
      }
    }
    path.pop();
    state.set(node.name, 'black');
  };
  for (const m of modules) if (!state.has(m.name)) visit(m);
  return problems;
}
