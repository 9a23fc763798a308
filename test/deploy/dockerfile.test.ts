// deploy/Dockerfile without a container engine: its instructions parsed, every file its stages copy
// from the build context present in the repository, the runtime stage built from what `npm pack`
// puts in the package, a non-root numeric user, `addon-operator start` as the entrypoint under tini,
// and every path the operator writes to under the one writable tmp dir.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

interface Instruction {
  op: string;
  args: string;
  stage: number;
}

/** Dockerfile instructions with their continuation lines joined, comments dropped, numbered by stage. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const m = /^([A-Za-z]+)\s+(.*)$/.exec(full);
    assert.ok(m, `not an instruction: ${full}`);
    const op = m[1]!.toUpperCase();
    if (op === 'FROM') stage++;
    out.push({ op, args: m[2]!, stage });
  }
  assert.equal(pending, '', 'the Dockerfile ends inside a continued line');
  return out;
}

const dockerfile = parseDockerfile(readFileSync(join(root, 'deploy/Dockerfile'), 'utf8'));
const stages = dockerfile.filter((i) => i.op === 'FROM').map((i) => ({ from: i.args.split(/\s+/)[0]!, name: /\bAS\s+(\S+)/i.exec(i.args)?.[1] }));
const last = stages.length - 1;
const inStage = (n: number, op: string) => dockerfile.filter((i) => i.stage === n && i.op === op);
const args = Object.fromEntries(dockerfile.filter((i) => i.op === 'ARG').map((i) => i.args.split('=') as [string, string]));
const words = (s: string) => s.split(/\s+/).filter((w) => !w.startsWith('--'));

void test('the image is Node 20 slim in every Node stage; kubectl comes from a stage of its own', () => {
  assert.match(args.NODE_IMAGE ?? '', /^node:20-[a-z]+-slim$/);
  assert.equal(stages[last]!.from, '${NODE_IMAGE}');
  assert.equal(stages.find((s) => s.name === 'build')?.from, '${NODE_IMAGE}');
  assert.match(args.KUBECTL_VERSION ?? '', /^v1\.\d+\.\d+$/);
  const kubectl = inStage(stages.findIndex((s) => s.name === 'kubectl'), 'RUN').map((i) => i.args).join('\n');
  assert.match(kubectl, /dl\.k8s\.io\/release\/\$\{KUBECTL_VERSION\}\/bin\/linux\/\$\{TARGETARCH\}\/kubectl/);
  assert.match(kubectl, /sha256sum -c/, 'the download is checked');
});

void test('the runtime stage installs bash, jq and tini, kubectl and the operator on PATH', () => {
  const run = inStage(last, 'RUN').map((i) => i.args).join('\n');
  const apt = /apt-get install\s+-y\s+--no-install-recommends\s+([^&]+)/.exec(run)?.[1]?.trim().split(/\s+/) ?? [];
  for (const p of ['bash', 'jq', 'tini']) assert.ok(apt.includes(p), `${p} is installed (apt-get install ${apt.join(' ')})`);
  const copies = inStage(last, 'COPY').map((i) => i.args);
  assert.ok(copies.includes('--from=kubectl /kubectl /usr/local/bin/kubectl'));
  assert.match(run, /ln -s \/app\/dist\/cli\/main\.js \/usr\/local\/bin\/addon-operator/);
});

void test('every COPY from the build context names files of the repository, and none of them is ignored', () => {
  const ignored = readFileSync(join(root, 'deploy/Dockerfile.dockerignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n');
  const fromContext = dockerfile.filter((i) => i.op === 'COPY' && !i.args.includes('--from='));
  assert.ok(fromContext.length >= 5);
  for (const c of fromContext) {
    const srcs = words(c.args).slice(0, -1);
    for (const src of srcs) {
      const path = src.replace(/\/$/, '');
      assert.ok(existsSync(join(root, path)), `COPY ${src}: missing in the repository`);
      assert.ok(tracked.some((f) => f === path || f.startsWith(path + '/')), `COPY ${src}: not tracked by git`);
      assert.ok(!ignored.some((g) => path === g || path.startsWith(g + '/')), `COPY ${src}: excluded by the .dockerignore`);
    }
  }
  // the build compiles what the package needs: the sources, the native wrapper, its build script
  const copied = fromContext.flatMap((c) => words(c.args).slice(0, -1));
  for (const need of ['package.json', 'package-lock.json', 'tsconfig.build.json', 'src/', 'native/', 'scripts/build-native.mjs']) {
    assert.ok(copied.includes(need), `the build stage copies ${need}`);
  }
});

void test('the runtime stage gets the npm-packed tree: the entrypoint and the files it loads are in the package', () => {
  const fromBuild = inStage(last, 'COPY').filter((i) => i.args.startsWith('--from=build'));
  assert.deepEqual(fromBuild.map((i) => words(i.args)), [['/pkg/package/', '/app/']]);
  const build = inStage(stages.findIndex((s) => s.name === 'build'), 'RUN').map((i) => i.args).join('\n');
  assert.match(build, /npm run build[^]*npm pack --ignore-scripts --pack-destination \/tmp/, 'built once, then packed as built');
  assert.match(build, /tar -xzf \/tmp\/addon-operator-\*\.tgz -C \/pkg/);
  assert.match(build, /npm ci --omit=dev/);
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as [{ files: { path: string }[] }];
  const files = new Set(pack.files.map((f) => f.path));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string>; exports: Record<string, string> };
  for (const f of ['package.json', pkg.bin['addon-operator']!, 'dist/cli/start-run.js', 'dist/native/hook-exec', ...Object.values(pkg.exports).map((p) => p.replace(/^\.\//, ''))]) {
    assert.ok(files.has(f), `${f} is in the npm package`);
  }
});

void test('a non-root numeric user, tini as PID 1 running `addon-operator start`, every writable path under /tmp', () => {
  const user = inStage(last, 'USER').at(-1)?.args ?? '';
  assert.match(user, /^[1-9]\d*:[1-9]\d*$/, 'numeric, so that runAsNonRoot can check it');
  assert.deepEqual(JSON.parse(inStage(last, 'ENTRYPOINT').at(-1)!.args), ['/usr/bin/tini', '--', 'addon-operator', 'start']);
  const env = Object.fromEntries(
    [...inStage(last, 'ENV').map((i) => i.args).join(' ').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
  );
  for (const name of ['HOME', 'TMPDIR', 'ADDON_OPERATOR_TMP_DIR', 'DEBUG_UNIX_SOCKET']) {
    assert.match(env[name] ?? '', /^\/tmp(\/|$)/, `${name} is under /tmp (the one writable dir of a read-only root)`);
  }
  assert.equal(env.MODULES_DIR, '/modules');
  assert.equal(env.GLOBAL_HOOKS_DIR, '/global-hooks');
  assert.match(inStage(last, 'RUN').map((i) => i.args).join('\n'), /mkdir -p \/modules \/global-hooks/, 'the default dirs exist (the global hooks dir must)');
});
