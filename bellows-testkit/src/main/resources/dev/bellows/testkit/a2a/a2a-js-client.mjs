// Drives an A2A 1.0 agent with the official @a2a-js/sdk client (ClientFactory from the agent
// card; the transport env TRANSPORT names, JSONRPC by default, or HTTP+JSON) and prints one JSON
// line per thing it sees, for a Java test to read:
//
//   node a2a-js-client.mjs BASE_URL 'STEPS'
//
// STEPS is a JSON array run in order; each prints {"step": N, "op": OP, ...} lines:
//   {"op": "card"}                                  -> {"card": AgentCard}
//   {"op": "send", "text": T, "push": true?, "answer": true?}
//                                                   -> {"result": {"task"|"message": ...}}
//   {"op": "stream", "text": T, "answer": true?, "name": S?}
//                                                   -> {"event": StreamResponse} each, then {"end": true}
//   {"op": "subscribe", "name": S?}                 -> as stream, for the current task
//   {"op": "await", "name": S, "events": N}         waits until stream S has seen N events
//   {"op": "join", "name": S}                       waits until stream S ended
//   {"op": "get", "historyLength": N?}              -> {"task": Task}
//   {"op": "list", "contextId": true?, "pageSize": N?, "status": STATE?} -> {"list": ListTasksResponse}
//   {"op": "cancel"}                                -> {"task": Task}
//   {"op": "webhook"}                               starts a receiver on 127.0.0.1 -> {"webhook": URL}
//   {"op": "push-create"} / "push-get" / "push-list" / "push-delete" -> {"config" | "configs" | "deleted"}
//   {"op": "await-pushes", "count": N}              -> {"pushes": [{"token": T, "body": StreamResponse JSON}, ...]}
//   {"op": "pause"}                                 -> {"paused": true}, then waits for a line on stdin
//
// "answer": true sends the message into the current task (taskId and contextId of the last task
// seen): how an input-required task is answered. "stream" without a name runs to its end before
// the next step; with one it runs beside the next steps. A step that fails prints
// {"error": {"name", "message", "code"?}} and the script goes on. Env HEADERS: a JSON object of
// extra request headers, sent with every call.
import http from 'node:http';
import readline from 'node:readline';
import { randomUUID } from 'node:crypto';
import { Message, Role, StreamResponse, Task, AgentCard, ListTasksResponse, TaskPushNotificationConfig,
  SendMessageResponse, TaskState, taskStateFromJSON } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';

const [, , baseUrl, stepsJson] = process.argv;
const steps = JSON.parse(stepsJson);
const headers = JSON.parse(process.env.HEADERS || '{}');
const options = () => ({ serviceParameters: { ...headers } });
const out = (line) => process.stdout.write(JSON.stringify(line) + '\n');
const stdin = readline.createInterface({ input: process.stdin });
const lines = stdin[Symbol.asyncIterator]();

const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
  preferredTransports: [process.env.TRANSPORT || 'JSONRPC'],
}));
const client = await factory.createFromUrl(baseUrl);

let task = { id: '', contextId: '' };   // the last task seen
const streams = new Map();              // name -> {events, done: Promise, waiters}
let webhook;
let lastConfig;
const pushes = [];
let pushWaiters = [];

const seeTask = (id, contextId) => {
  if (id) {
    task = { id, contextId: contextId || task.contextId };
  }
};
const seeEvent = (event) => {
  const p = event.payload;
  if (p?.$case === 'task') seeTask(p.value.id, p.value.contextId);
  if (p?.$case === 'statusUpdate' || p?.$case === 'artifactUpdate') seeTask(p.value.taskId, p.value.contextId);
};
const request = (step) => ({
  tenant: '', metadata: undefined,
  message: {
    messageId: randomUUID(), role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: step.text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    taskId: step.answer ? task.id : '', contextId: step.answer || step.sameContext ? task.contextId : '',
    extensions: [], metadata: undefined, referenceTaskIds: [],
  },
  configuration: step.push ? { acceptedOutputModes: [], returnImmediately: false, historyLength: undefined,
    taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: webhook, token: 'push-token', authentication: undefined } }
    : undefined,
});
const errorOf = (e) => ({ name: e?.constructor?.name ?? 'Error', message: String(e?.message ?? e), code: e?.code });

function consume(index, op, name, generator) {
  const entry = { events: 0, waiters: [] };
  entry.done = (async () => {
    try {
      for await (const event of generator) {
        seeEvent(event);
        entry.events++;
        out({ step: index, op, name, event: StreamResponse.toJSON(event) });
        entry.waiters = entry.waiters.filter((w) => (entry.events >= w.n ? (w.resolve(), false) : true));
      }
      out({ step: index, op, name, end: true });
    } catch (e) {
      out({ step: index, op, name, error: errorOf(e) });
    } finally {
      entry.ended = true;
      entry.waiters.forEach((w) => w.resolve());
    }
  })();
  streams.set(name, entry);
  return entry;
}

async function run(index, step) {
  const say = (line) => out({ step: index, op: step.op, ...line });
  switch (step.op) {
    case 'card':
      return say({ card: AgentCard.toJSON(await client.getAgentCard(options())) });
    case 'send': {
      const result = await client.sendMessage(request(step), options());
      if (result.id !== undefined && result.status !== undefined) {
        seeTask(result.id, result.contextId);
        return say({ result: { task: Task.toJSON(result) } });
      }
      return say({ result: { message: Message.toJSON(result) } });
    }
    case 'stream': {
      const entry = consume(index, step.op, step.name ?? 'stream' + index, client.sendMessageStream(request(step), options()));
      return step.name ? undefined : entry.done;
    }
    case 'subscribe': {
      const entry = consume(index, step.op, step.name ?? 'subscribe' + index,
        client.resubscribeTask({ tenant: '', id: task.id }, options()));
      return step.name ? undefined : entry.done;
    }
    case 'await': {
      const entry = streams.get(step.name);
      if (entry.events < step.events && !entry.ended) {
        await new Promise((resolve) => entry.waiters.push({ n: step.events, resolve }));
      }
      return say({ events: entry.events });
    }
    case 'join':
      await streams.get(step.name).done;
      return say({ joined: step.name });
    case 'get':
      return say({ task: Task.toJSON(await client.getTask({ tenant: '', id: task.id, historyLength: step.historyLength }, options())) });
    case 'list':
      return say({ list: ListTasksResponse.toJSON(await client.listTasks({
        tenant: '', contextId: step.contextId ? task.contextId : '', pageToken: step.pageToken ?? '',
        status: step.status ? taskStateFromJSON(step.status) : TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: step.pageSize, historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: step.includeArtifacts,
      }, options())) });
    case 'cancel':
      return say({ task: Task.toJSON(await client.cancelTask({ tenant: '', id: task.id, metadata: undefined }, options())) });
    case 'webhook': {
      const server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (d) => { body += d; });
        req.on('end', () => {
          pushes.push({ token: req.headers['x-a2a-notification-token'] ?? null, body: JSON.parse(body) });
          res.end();
          pushWaiters = pushWaiters.filter((w) => (pushes.length >= w.n ? (w.resolve(), false) : true));
        });
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      webhook = `http://127.0.0.1:${server.address().port}/hook`;
      return say({ webhook });
    }
    case 'push-create':
      lastConfig = await client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: task.id, url: webhook,
        token: 'push-token', authentication: undefined }, options());
      return say({ config: TaskPushNotificationConfig.toJSON(lastConfig) });
    case 'push-get':
      return say({ config: TaskPushNotificationConfig.toJSON(await client.getTaskPushNotificationConfig(
        { tenant: '', taskId: task.id, id: lastConfig.id }, options())) });
    case 'push-list': {
      const list = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }, options());
      return say({ configs: list.configs.map((c) => TaskPushNotificationConfig.toJSON(c)) });
    }
    case 'push-delete':
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: lastConfig.id }, options());
      return say({ deleted: lastConfig.id });
    case 'await-pushes':
      if (pushes.length < step.count) {
        await new Promise((resolve) => pushWaiters.push({ n: step.count, resolve }));
      }
      return say({ pushes: pushes.slice(0, step.count) });
    case 'pause':
      say({ paused: true });
      await lines.next();
      return undefined;
    default:
      throw new Error('unknown step ' + step.op);
  }
}

for (const [index, step] of steps.entries()) {
  try {
    await run(index, step);
  } catch (e) {
    out({ step: index, op: step.op, error: errorOf(e) });
  }
}
for (const entry of streams.values()) {
  await entry.done;
}
stdin.close();
process.exit(0);
