/**
 * Module name (kebab-case directory name) ↔ values key (camelCase), with the word splitting of
 * ettle/strcase that the Go addon-operator uses, so that both accept and reject the same names.
 */

const isLower = (c: string) => c >= 'a' && c <= 'z';
const isUpper = (c: string) => c >= 'A' && c <= 'Z';
const isDigit = (c: string) => c >= '0' && c <= '9';
const isDelimiter = (c: string) => c === '_' || c === '-' || c === ' ' || c === '.';

export function splitWords(s: string): string[] {
  const words: string[] = [];
  let cur = '';
  const chars = [...s];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const prev = i > 0 ? chars[i - 1]! : '';
    const next = i + 1 < chars.length ? chars[i + 1]! : '';
    if (isDelimiter(c)) {
      // a dot between two digits is part of the word (a version number)
      if (c === '.' && isDigit(prev) && isDigit(next)) {
        cur += c;
        continue;
      }
      if (cur) words.push(cur);
      cur = '';
      continue;
    }
    let boundary = false;
    if (cur && !isLower(c)) {
      if (isUpper(c) && isLower(prev)) boundary = true;
      else if (isUpper(c) && isUpper(prev) && isLower(next)) boundary = true;
      else if (isDigit(prev) && !isDigit(c)) boundary = true;
    }
    if (boundary) {
      words.push(cur);
      cur = '';
    }
    cur += c;
  }
  if (cur) words.push(cur);
  return words;
}

const title = (w: string) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();

export function toCamel(s: string): string {
  return splitWords(s)
    .map((w, i) => (i === 0 ? w.toLowerCase() : title(w)))
    .join('');
}

export function toKebab(s: string): string {
  return splitWords(s)
    .map((w) => w.toLowerCase())
    .join('-');
}

/** The values key of a module: `cert-manager` → `certManager`. */
export const moduleValuesKey = (moduleName: string): string => toCamel(moduleName);

/** The module name of a values key: `certManager` → `cert-manager`. */
export const moduleNameOfKey = (valuesKey: string): string => toKebab(valuesKey);

/** True when the module name converts to a values key and back unchanged. */
export function isValidModuleName(name: string): boolean {
  return name !== '' && toKebab(toCamel(name)) === name;
}

/** True when the values key converts to a module name and back unchanged. */
export function isValidValuesKey(key: string): boolean {
  return key !== '' && toCamel(toKebab(key)) === key;
}
