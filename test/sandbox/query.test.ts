// Query parameters decoded and validated as kube-apiserver does: booleans, list and watch options, dryRun, force, pretty, field selectors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { cm, raw, withSandbox, within } from './helpers.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { waitFor } from '../helpers/wait.js';

const CM_PATH = '/api/v1/namespaces/default/configmaps';

/** Opens a GET, collects its body lines until `enough` says so, then closes it. */
async function lines(sb: Sandbox, path: string, enough: (ls: any[]) => boolean, opts: { after?: () => Promise<unknown> } = {}): Promise<{ status: number; events: any[] }> {
  let req: ReturnType<typeof request> | undefined;
  const done = new Promise<{ status: number; events: any[] }>((resolve, reject) => {
    req = request(new URL(path, sb.url), { headers: { authorization: `Bearer ${sb.token}` }, ca: [sb.caCert!] }, (res) => {
      let buf = '';
      const events: any[] = [];
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buf.slice(0, i)));
          buf = buf.slice(i + 1);
        }
        if (enough(events)) {
          req!.destroy();
          resolve({ status: res.statusCode ?? 0, events });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, events: buf ? [...events, JSON.parse(buf)] : events }));
      if (opts.after) opts.after().catch(reject);
    });
    req.on('error', (e) => {
      if (!String(e).includes('socket hang up')) reject(e);
    });
    req.end();
  });
  return within(done, `the answer of ${path}`, () => req?.destroy());
}

test('a boolean parameter is false only for 0 and false in any case: watch=True (Python client) is a watch', async () => {
  await withSandbox(async ({ core, sb }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('one') });
    for (const v of ['True', 'TRUE', 'true', '1', 'yes', '']) {
      const { events } = await lines(sb, `${CM_PATH}?watch=${v}`, (ls) => ls.length >= 1);
      assert.equal(events[0].type, 'ADDED', `watch=${v} streams events`);
      assert.equal(events[0].object.metadata.name, 'one');
    }
    for (const v of ['False', 'FALSE', 'false', '0']) {
      const r = await raw(sb, 'GET', `${CM_PATH}?watch=${v}`);
      assert.equal(r.json().kind, 'ConfigMapList', `watch=${v} lists`);
    }
  });
});

test('a watch from no resourceVersion with bookmarks ends its initial events with the k8s.io/initial-events-end bookmark', async () => {
  await withSandbox(async ({ core, sb }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    const { events } = await lines(sb, `${CM_PATH}?watch=True&allowWatchBookmarks=True`, (ls) => ls.some((e) => e.type === 'BOOKMARK'));
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`), ['ADDED a', 'ADDED b', 'BOOKMARK ']);
    assert.equal(events[2].object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    assert.equal(events[2].object.metadata.resourceVersion, sb.resourceVersion());
  });
});

test('sendInitialEvents=false with resourceVersionMatch=NotOlderThan watches from now, without the current state', async () => {
  await withSandbox(async ({ core, sb }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('old') });
    const { events } = await lines(sb, `${CM_PATH}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=0`, (ls) => ls.length >= 1, {
      after: async () => {
        await waitFor(() => sb.watchCount() === 1, 'the watch');
        await core.createNamespacedConfigMap({ namespace: 'default', body: cm('new') });
      },
    });
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED new']);
  });
});

test('wrong combinations of list and watch options get the 422 of ListOptions.meta.k8s.io', async () => {
  await withSandbox(async ({ sb }) => {
    const cases: [string, string][] = [
      ['resourceVersionMatch=NotOlderThan', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['resourceVersionMatch=Exact&resourceVersion=0', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      ['resourceVersionMatch=Newest&resourceVersion=1', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'],
      ['sendInitialEvents=true', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
      ['watch=true&sendInitialEvents=true', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
      ['watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=5', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
      [
        'watch=true&sendInitialEvents=true&resourceVersionMatch=Exact',
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
      ],
    ];
    for (const [q, message] of cases) {
      const r = await raw(sb, 'GET', `${CM_PATH}?${q}`);
      assert.equal(r.status, 422, q);
      const s = r.json();
      assert.equal(s.kind, 'Status');
      assert.equal(s.reason, 'Invalid');
      assert.equal(s.message, message, q);
      assert.equal(s.details.kind, 'ListOptions');
      assert.equal(s.details.group, 'meta.k8s.io');
      assert.ok(['resourceVersionMatch', 'sendInitialEvents'].includes(s.details.causes[0].field), q);
    }
  });
});

test('list resourceVersion: too large is 504 Timeout; with continue it is 400; a negative limit is no limit; limit=abc is 400', async () => {
  await withSandbox(async ({ core, sb }) => {
    for (const n of ['a', 'b', 'c']) await core.createNamespacedConfigMap({ namespace: 'default', body: cm(n) });
    const big = Number(sb.resourceVersion()) + 100;
    const r = await raw(sb, 'GET', `${CM_PATH}?resourceVersion=${big}&resourceVersionMatch=NotOlderThan`);
    assert.equal(r.status, 504);
    assert.equal(r.json().reason, 'Timeout');
    assert.equal(r.json().message, `Timeout: Too large resource version: ${big}, current: ${sb.resourceVersion()}`);
    assert.equal(r.json().details.causes[0].type, 'ResourceVersionTooLarge');
    const page = (await raw(sb, 'GET', `${CM_PATH}?limit=1`)).json();
    const c = await raw(sb, 'GET', `${CM_PATH}?limit=1&continue=${page.metadata.continue}&resourceVersion=${page.metadata.resourceVersion}`);
    assert.equal(c.status, 400);
    assert.equal(c.json().message, 'specifying resource version is not allowed when using continue');
    const all = (await raw(sb, 'GET', `${CM_PATH}?limit=-1`)).json();
    assert.deepEqual(all.items.map((i: any) => i.metadata.name), ['a', 'b', 'c']);
    assert.equal(all.metadata.continue, undefined);
    const bad = await raw(sb, 'GET', `${CM_PATH}?limit=abc`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json().message, 'strconv.ParseInt: parsing "abc": invalid syntax');
  });
});

test('dryRun takes only All (422 CreateOptions otherwise); dryRun=All in the query of a delete keeps the object', async () => {
  await withSandbox(async ({ core, sb }) => {
    const r = await raw(sb, 'POST', `${CM_PATH}?dryRun=true`, { body: JSON.stringify(cm('x')), headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 422);
    assert.equal(r.json().message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["true"]: supported values: "All"');
    assert.equal(r.json().details.causes[0].type, 'FieldValueNotSupported');
    assert.equal((await raw(sb, 'GET', `${CM_PATH}/x`)).status, 404, 'nothing created');
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('keep') });
    const d = await raw(sb, 'DELETE', `${CM_PATH}/keep?dryRun=All`);
    assert.equal(d.status, 200);
    assert.equal((await raw(sb, 'GET', `${CM_PATH}/keep`)).status, 200, 'a dry-run delete deletes nothing');
  });
});

test('force is refused on a non-apply patch (422 PatchOptions)', async () => {
  await withSandbox(async ({ core, sb }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('p') });
    const r = await raw(sb, 'PATCH', `${CM_PATH}/p?force=true`, { body: '{"data":{"a":"b"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(r.status, 422);
    assert.equal(r.json().message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });
});

test('field selectors: only the fields the API server knows for the kind; escaped values; selectable fields of Secrets and Pods', async () => {
  await withSandbox(async ({ core, sb }) => {
    const bad = await raw(sb, 'GET', `${CM_PATH}?fieldSelector=data.a%3Db`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json().message, '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"');
    const badPod = await raw(sb, 'GET', '/api/v1/pods?fieldSelector=spec.foo%3Db');
    assert.equal(badPod.json().message, 'field label not supported: spec.foo');
    const esc = await raw(sb, 'GET', `${CM_PATH}?fieldSelector=${encodeURIComponent('metadata.name!=a\\,b')}`);
    assert.equal(esc.status, 200);
    const unescaped = await raw(sb, 'GET', `${CM_PATH}?fieldSelector=${encodeURIComponent('metadata.name=a=b')}`);
    assert.equal(unescaped.status, 400);
    assert.equal(unescaped.json().message, 'invalid field selector: unescaped character in value: 61');
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 's1' }, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } } });
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 's2' } } });
    const tls = await core.listNamespacedSecret({ namespace: 'default', fieldSelector: 'type=kubernetes.io/tls' });
    assert.deepEqual(tls.items.map((s) => s.metadata!.name), ['s1']);
    await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }], nodeName: 'n1' } } });
    const onNode = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n1' });
    assert.deepEqual(onNode.items.map((p) => p.metadata!.name), ['p']);
  });
});

test('pretty=true (and a curl User-Agent) get indented JSON; others compact', async () => {
  await withSandbox(async ({ core, sb }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('pp', { a: 'b' }) });
    const pretty = await raw(sb, 'GET', `${CM_PATH}/pp?pretty=true`);
    assert.ok(pretty.text.startsWith('{\n  "apiVersion": "v1"'), pretty.text.slice(0, 40));
    const curl = await raw(sb, 'GET', `${CM_PATH}?limit=5`, { headers: { 'user-agent': 'curl/8.5.0' } });
    assert.ok(curl.text.includes('\n  "kind": "ConfigMapList"') || curl.text.startsWith('{\n  "kind"'), curl.text.slice(0, 40));
    const notPretty = await raw(sb, 'GET', `${CM_PATH}/pp?pretty=false`, { headers: { 'user-agent': 'curl/8.5.0' } });
    assert.ok(notPretty.text.startsWith('{"apiVersion"'));
    const plain = await raw(sb, 'GET', `${CM_PATH}/pp`);
    assert.ok(plain.text.startsWith('{"apiVersion"'));
  });
});
