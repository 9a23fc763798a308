/**
 * Hook discovery: files found recursively under a hooks directory (`$GLOBAL_HOOKS_DIR/hooks` or
 * `<module>/hooks`), like addon-operator's RecursiveGetExecutablePaths:
 * - hidden entries (name starting with `.`) and directories named `lib` are skipped (and `venv` when asked,
 *   as addon-operator does for module hooks);
 * - files ending in `.yaml`, `.json`, `.md`, `.txt` are ignored;
 * - `*.hook.js` / `*.hook.mjs` are in-process hooks (they need not be executable);
 * - any other file must be executable (any x bit), else it is skipped and reported through `onSkip`;
 * - symlinks are followed (a link back to a directory being walked is reported as a loop and not entered);
 * - the result is sorted by relative path (byte order, as Go's sort.Strings).
 */
import { readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';

export type HookFileKind = 'executable' | 'inProcess';

export interface DiscoveredHook {
  readonly kind: HookFileKind;
  /** Absolute (or root-joined) path to the file. */
  readonly path: string;
  /** Path relative to the hooks root, with `/` separators (shell-operator's hook name). */
  readonly relativePath: string;
}

export type SkipReason = 'not-executable' | 'ignored-extension' | 'broken-symlink' | 'directory-loop' | 'not-a-file';

export interface SkippedEntry {
  readonly path: string;
  readonly relativePath: string;
  readonly reason: SkipReason;
}

export interface DiscoverHooksOptions {
  /** Called for every file that is not a hook (for a debug log line). Hidden entries and `lib` dirs are not reported. */
  readonly onSkip?: (entry: SkippedEntry) => void;
  /** Extra directory names to skip besides `lib` (addon-operator skips `venv` in module hook dirs). */
  readonly skipDirNames?: readonly string[];
}

const IGNORED_EXTENSIONS = ['.yaml', '.json', '.md', '.txt'];
const IN_PROCESS = /\.hook\.m?js$/;

/** How a file name is classified, before looking at its mode. */
export function classifyHookFileName(name: string): HookFileKind | 'ignored' {
  if (IN_PROCESS.test(name)) return 'inProcess';
  if (IGNORED_EXTENSIONS.some((ext) => name.endsWith(ext))) return 'ignored';
  return 'executable';
}

function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

/**
 * Find hook files under `root`. A missing root gives an empty list (a module without hooks). The
 * calls are synchronous: a hooks dir is a few entries, and each asynchronous call cost the start of a
 * 100-module fleet ten times the CPU of the synchronous one (fs/promises' round trips).
 */
export async function discoverHooks(root: string, options: DiscoverHooksOptions = {}): Promise<DiscoveredHook[]> {
  const skipDirs = new Set(['lib', ...(options.skipDirNames ?? [])]);
  const found: DiscoveredHook[] = [];

  let rootStat: Stats;
  try {
    rootStat = statSync(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  if (!rootStat.isDirectory()) throw new Error(`hooks directory '${root}' is not a directory`);

  const skip = (path: string, reason: SkipReason): void => {
    options.onSkip?.({ path, relativePath: toPosix(relative(root, path)), reason });
  };

  // `ancestors`: real paths of the directories being walked, to stop at a symlink that loops back.
  const walk = (dir: string, ancestors: ReadonlySet<string>): void => {
    const real = realpathSync(dir);
    if (ancestors.has(real)) {
      skip(dir, 'directory-loop');
      return;
    }
    const inside = new Set(ancestors).add(real);
    const entries = readdirSync(dir, { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      let st: Stats;
      try {
        st = statSync(path); // follows symlinks
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ELOOP') {
          skip(path, 'broken-symlink');
          continue;
        }
        throw err;
      }
      if (st.isDirectory()) {
        if (skipDirs.has(entry.name)) continue;
        walk(path, inside);
        continue;
      }
      if (!st.isFile()) {
        skip(path, 'not-a-file');
        continue;
      }
      const kind = classifyHookFileName(entry.name);
      if (kind === 'ignored') {
        skip(path, 'ignored-extension');
        continue;
      }
      if (kind === 'executable' && (st.mode & 0o111) === 0) {
        skip(path, 'not-executable');
        continue;
      }
      found.push({ kind, path, relativePath: toPosix(relative(root, path)) });
    }
  };
  walk(root, new Set());
  found.sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
  return found;
}

/** addon-operator: global hooks live in `$GLOBAL_HOOKS_DIR/hooks` when it exists, else in `$GLOBAL_HOOKS_DIR`. */
export async function globalHooksRoot(globalHooksDir: string): Promise<string> {
  const candidate = join(globalHooksDir, 'hooks');
  try {
    if (statSync(candidate).isDirectory()) return candidate;
  } catch {
    // fall through
  }
  return globalHooksDir;
}
