// releaseutil.SplitManifests and strings.TrimSpace as Helm runs them on a release's manifest: the
// documents between `---` lines (a separator after a line break, or at the start; white space around
// it eaten), trimmed with Go's white space, empty ones dropped; also on text with deep indentation,
// as large CRDs have, where the scan stays linear.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goTrimSpace, splitManifests } from '../../src/helm/manifests.js';

test('goTrimSpace trims Go\'s white space (U+0085 and U+00A0 too, not U+FEFF), and only at the ends', () => {
  assert.equal(goTrimSpace(' \t\n\v\f\r\u0085\u00a0\u2000\u3000a b\n\u2028'), 'a b');
  assert.equal(goTrimSpace('\ufeffa\ufeff'), '\ufeffa\ufeff');
  assert.equal(goTrimSpace('   '), '');
  assert.equal(goTrimSpace(''), '');
  assert.equal(goTrimSpace('a'), 'a');
});

test('splitManifests: the documents between separators, trimmed, empty ones dropped', () => {
  assert.deepEqual(splitManifests(''), []);
  assert.deepEqual(splitManifests('---'), []);
  assert.deepEqual(splitManifests('a: 1'), ['a: 1']);
  assert.deepEqual(splitManifests('---\na: 1\n---\nb: 2\n'), ['a: 1', 'b: 2']);
  // the first separator's white space eats the line break the second `---` needed (Go's regexp too)
  assert.deepEqual(splitManifests('a: 1\n---\n---\nb: 2'), ['a: 1', '---\nb: 2']);
  assert.deepEqual(splitManifests('a: 1\n  \n\t\n---   \n\nb: 2'), ['a: 1', 'b: 2']);
  // a separator followed by text on its line
  assert.deepEqual(splitManifests('a: 1\n---\n---b: 2'), ['a: 1', '---b: 2']);
  assert.deepEqual(splitManifests('a: 1\n--- # c\nb: 2'), ['a: 1', '# c\nb: 2']);
  // not a separator: `---` inside a line, or after spaces at a line's start
  assert.deepEqual(splitManifests('a: x---y\n  ---\nb: 2'), ['a: x---y\n  ---\nb: 2']);
  // a leading document separator after white space, and `----`
  assert.deepEqual(splitManifests('\n\n---\na: 1\n----\nb: 2'), ['a: 1', '-\nb: 2']);
  assert.deepEqual(splitManifests('# Source: x\n---\n# Source: y\nkind: A\n'), ['# Source: x', '# Source: y\nkind: A']);
});

test('splitManifests on deeply indented documents (a large CRD\'s schema) gives each document whole', () => {
  const deep = Array.from({ length: 2000 }, (_, i) => `${' '.repeat(40 + (i % 40))}f${i}: x`).join('\n');
  const doc = `kind: CustomResourceDefinition\nspec:\n${deep}`;
  const text = `${doc}\n${' '.repeat(5000)}\n---\n${doc}\n`;
  assert.deepEqual(splitManifests(text), [doc, doc]);
});
