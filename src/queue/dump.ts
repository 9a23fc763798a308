/**
 * `queue list` / `queue main` dumps in the formats of shell-operator pkg/task/dump
 * (reference/addon-operator.md §3.2).
 */
import { MAIN_QUEUE } from './task.js';

/** What a dump needs from a queue. */
export interface DumpableQueue {
  readonly name: string;
  readonly length: number;
  readonly status: string;
  tasks(): readonly { description(): string }[];
}

export interface TaskDump {
  index: number;
  description: string;
}

/** `status` and `tasks` are left out when empty, as Go's `omitempty` does. */
export interface QueueDump {
  name: string;
  tasksCount: number;
  status?: string;
  tasks?: TaskDump[];
}

export interface QueueListSummary {
  mainQueueTasks: number;
  otherQueues: { active: number; empty: number; tasks: number };
  totalTasks: number;
}

/** JSON/YAML shape of `queue list`; key order as Go prints it. `empty` only with showEmpty. */
export interface QueueListDump {
  active: QueueDump[];
  empty?: QueueDump[];
  summary: QueueListSummary;
}

export interface QueueListOptions {
  showEmpty?: boolean;
  /** Name of the main queue (default `main`). */
  mainName?: string;
}

function queueDump(q: DumpableQueue): QueueDump {
  const d: QueueDump = { name: q.name, tasksCount: q.length };
  const status = q.status;
  if (status !== '') d.status = status;
  const tasks = q.tasks().map((t, i) => ({ index: i + 1, description: t.description() }));
  if (tasks.length > 0) d.tasks = tasks;
  return d;
}

function byQueueName(mainName: string): (a: { name: string }, b: { name: string }) => number {
  return (a, b) => {
    if (a.name === b.name) return 0;
    if (a.name === mainName) return -1;
    if (b.name === mainName) return 1;
    return a.name < b.name ? -1 : 1;
  };
}

interface Collected {
  active: QueueDump[];
  empty: QueueDump[];
  main: QueueDump | undefined;
  summary: QueueListSummary;
  showEmpty: boolean;
}

function collect(queues: Iterable<DumpableQueue>, opts: QueueListOptions): Collected {
  const mainName = opts.mainName ?? MAIN_QUEUE;
  const active: QueueDump[] = [];
  const empty: QueueDump[] = [];
  let main: QueueDump | undefined;
  let others = 0;
  let othersActive = 0;
  let othersEmpty = 0;
  let othersTasks = 0;
  let mainTasks = 0;
  for (const q of queues) {
    if (q.name === mainName) {
      mainTasks = q.length;
      main = q.length === 0 ? { name: q.name, tasksCount: 0 } : queueDump(q);
      (q.length === 0 ? empty : active).push(main);
      continue;
    }
    others++;
    if (q.length === 0) {
      othersEmpty++;
      empty.push({ name: q.name, tasksCount: 0 });
    } else {
      othersActive++;
      othersTasks += q.length;
      active.push(queueDump(q));
    }
  }
  const cmp = byQueueName(mainName);
  active.sort(cmp);
  empty.sort(cmp);
  // A lone empty main queue is reported in the summary only.
  const showEmpty = Boolean(opts.showEmpty) && !(empty.length > 0 && others === 0);
  return {
    active,
    empty,
    main,
    showEmpty,
    summary: {
      mainQueueTasks: mainTasks,
      otherQueues: { active: othersActive, empty: othersEmpty, tasks: othersTasks },
      totalTasks: mainTasks + othersTasks,
    },
  };
}

/** `queue list -o json|yaml`. */
export function dumpQueueList(queues: Iterable<DumpableQueue>, opts: QueueListOptions = {}): QueueListDump {
  const c = collect(queues, opts);
  if (c.showEmpty && c.empty.length > 0) return { active: c.active, empty: c.empty, summary: c.summary };
  return { active: c.active, summary: c.summary };
}

function plural(n: number, zero: string, one: string, many: string): string {
  if (n === 0 && zero !== '') return zero;
  return `${n} ${n === 1 ? one : many}`;
}

function queueText(q: QueueDump): string {
  let s = `Queue '${q.name}': length ${q.tasksCount}, status: '${q.status ?? ''}'\n\n`;
  for (const t of q.tasks ?? []) s += `${String(t.index).padStart(2)}. ${t.description}\n`;
  return s;
}

/** `queue list -o text` (the default), byte for byte as shell-operator prints it. */
export function dumpQueueListText(queues: Iterable<DumpableQueue>, opts: QueueListOptions = {}): string {
  const c = collect(queues, opts);
  let buf = c.active.map(queueText).join('\n');
  if (c.showEmpty) {
    buf += `\nEmpty queues (${c.empty.length}):\n`;
    for (const q of c.empty) buf += `- ${q.name}\n`;
  }
  if (c.active.length === 0 && c.empty.length === 0) return buf + 'Summary:\n  No queues.\n';
  let others = c.active.length + c.empty.length;
  if (buf.length > 0) buf += '\n';
  buf += 'Summary:\n';
  if (c.main) {
    others--;
    buf += `- '${c.main.name}' queue: ${plural(c.main.tasks?.length ?? 0, 'empty', 'task', 'tasks')}.\n`;
  }
  if (others > 0) {
    const o = c.summary.otherQueues;
    buf += `- ${plural(others, '', 'other queue', 'other queues')} (${o.active} active, ${o.empty} empty): ${plural(o.tasks, '', 'task', 'tasks')}.\n`;
  }
  buf +=
    c.summary.totalTasks === 0 ? '- no tasks to handle.\n' : `- total ${plural(c.summary.totalTasks, '', 'task', 'tasks')} to handle.\n`;
  return buf;
}

/** `queue main -o json|yaml`; a missing main queue dumps as `Queue is not created`. */
export function dumpQueue(q: DumpableQueue | undefined, name = MAIN_QUEUE): QueueDump {
  if (!q) return { name, tasksCount: 0, status: 'Queue is not created' };
  return queueDump(q);
}

/** `queue main -o text`. */
export function dumpQueueText(q: DumpableQueue | undefined, name = MAIN_QUEUE): string {
  return queueText(dumpQueue(q, name));
}
