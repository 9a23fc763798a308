/**
 * examples/configmap-values: the layers (module values.yaml, schema default, ConfigMap) meet in the
 * chart; a ConfigMap edit is applied, a rejected one changes nothing, the enabled flag deletes the release.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestJson } from '../../src/kube/http.js';
import { eventually, runExample } from './helpers.js';

test('examples/configmap-values', async () => {
  const ex = await runExample('configmap-values');
  const text = async () => (await ex.get<{ data: { text: string } }>('/api/v1/namespaces/default/configmaps/greeting')).data.text;
  assert.equal(await text(), 'Hello, operator!');
  const patch = (data: Record<string, string>) =>
    requestJson(ex.kc, 'PATCH', '/api/v1/namespaces/default/configmaps/addon-operator', {}, { data }, 'application/merge-patch+json');

  await patch({ greeter: 'greeting: Hi\nname: there\n' });
  await eventually(async () => assert.equal(await text(), 'Hi, there!'), 'the edited config');

  await patch({ greeter: 'punctuation: "#"\n' });
  await eventually(async () => assert.match(ex.output(), /greeter\.punctuation/), 'the rejection on the console');
  assert.equal(await text(), 'Hi, there!', 'nothing applied');

  await patch({ greeter: 'greeting: Hi\n', greeterEnabled: 'false' }); // a rejected config blocks every key: fixed with it
  await eventually(async () => {
    await assert.rejects(text(), /404|not found/i);
  }, 'the release deleted');
  assert.equal(await ex.stop(), 0);
});
