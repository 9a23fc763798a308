// A node:test reporter for scripts/run-tests.mjs: one JSON line per test event as it happens (queued,
// taken, passed, failed), so that the tests of a file killed on its timeout can still be counted
// and the test it was running named. Written to the file given by --test-reporter-destination.
export default async function* testEvents(source) {
  for await (const event of source) {
    if (!['test:enqueue', 'test:dequeue', 'test:pass', 'test:fail'].includes(event.type)) continue;
    const { name, nesting, file, skip, todo, details } = event.data;
    yield JSON.stringify({ event: event.type.slice(5), name, nesting, file, skip: !!skip || !!todo, suite: details?.type === 'suite' }) + '\n';
  }
}
