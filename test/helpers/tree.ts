import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';

/** A file tree for a test; a value starting with `#!` is written executable. Removed after the tests. */
export function makeTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ao-test-'));
  writeTree(root, files);
  after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

/** Writes files below `root` (a value starting with `#!` is written executable). */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content, { mode: content.startsWith('#!') ? 0o755 : 0o644 });
  }
}

export function addDir(root: string, path: string): string {
  const full = join(root, path);
  mkdirSync(full, { recursive: true });
  return full;
}
