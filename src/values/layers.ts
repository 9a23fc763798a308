/** Where a layer of values came from; every validation error names it. */
export type LayerSource =
  | { kind: 'file'; file: string }
  | { kind: 'configmap'; key: string; changedBy?: string; origin?: string }
  | { kind: 'default'; file: string }
  | { kind: 'patch'; hook: string };

export function describeSource(s: LayerSource): string {
  switch (s.kind) {
    case 'file':
      return s.file;
    case 'configmap':
      return `ConfigMap key "${s.key}"` + (s.origin ? ` in ${s.origin}` : '') + (s.changedBy ? ` (as changed by the config patch of hook ${s.changedBy})` : '');
    case 'default':
      return `a default in ${s.file}`;
    case 'patch':
      return `the values patch of hook ${s.hook}`;
  }
}
