// An A2A 1.0 agent on the official @a2a-js/sdk server (DefaultRequestHandler, the express
// JSON-RPC and HTTP+JSON handlers, in-memory tasks, push notifications), for Bellows' client
// to talk to. It listens on 127.0.0.1 (port PORT, default any free one) and prints one JSON
// line {"url": BASE_URL} once it does. What it does with a message depends on its text:
//
//   contains "ask"   input-required with the question "Which city?"; the next message of the
//                    task is the answer, and the task completes with "Weather in ANSWER: sunny"
//   contains "hold"  working, until the task is cancelled (then canceled)
//   contains "gate"  the first artifact chunk, then waits for POST /test/release before the rest
//   contains "fail"  working, then failed with the message "the agent failed on purpose"
//   contains "direct" a Message back, no task
//   otherwise        submitted, working ("working on it"), the artifact "answer" in three chunks
//                    ("Echo: ", the text, "!"), completed
//
// Env STREAMING=false: the card declares no streaming (the SDK then refuses streams).
// Env PREFER=HTTP+JSON: the card lists the HTTP+JSON interface first.
// Env A2A_TOKEN: the A2A endpoints (not the card) answer 401 unless the request carries
// "Authorization: Bearer A2A_TOKEN". The headers of every A2A request are logged to stderr
// as JSON lines {"headers": {...}} (lower-cased names), for tests that check what was sent.
import express from 'express';
import { randomUUID } from 'node:crypto';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent, DefaultPushNotificationSender, DefaultRequestHandler, DefaultExecutionEventBusManager,
  InMemoryPushNotificationStore, InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const message = (taskId, contextId, value) => ({
  messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [text(value)],
  metadata: undefined, extensions: [], referenceTaskIds: [],
});
const status = (taskId, contextId, state, note) => AgentEvent.statusUpdate({
  taskId, contextId, metadata: undefined,
  status: { state, timestamp: new Date().toISOString(), message: note === undefined ? undefined : message(taskId, contextId, note) },
});
const chunk = (taskId, contextId, value, append, lastChunk) => AgentEvent.artifactUpdate({
  taskId, contextId, append, lastChunk, metadata: undefined,
  artifact: { artifactId: 'answer-' + taskId, name: 'answer', description: '', parts: [text(value)], metadata: undefined, extensions: [] },
});
const textOf = (msg) => (msg?.parts ?? []).filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('');

const cancels = new Map();   // taskId -> resolve(), for tasks that hold until cancelled
let releases = [];           // resolve() of the gated tasks waiting for POST /test/release

class TestAgent {
  async execute(context, bus) {
    const { taskId, contextId } = context;
    const said = textOf(context.userMessage);
    const existing = context.task;
    if (!existing && said.includes('direct')) {
      bus.publish(AgentEvent.message(message('', contextId, 'Direct: ' + said)));
      bus.finished();
      return;
    }
    if (existing && existing.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      bus.publish(AgentEvent.task(existing));   // a stream begins with the task, as it stands
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, undefined));
      bus.publish(chunk(taskId, contextId, 'Weather in ' + said + ': sunny', false, true));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED, undefined));
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.task({
      id: taskId, contextId, artifacts: [], history: [context.userMessage], metadata: undefined,
      status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
    }));
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, 'working on it'));
    if (said.includes('ask')) {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, 'Which city?'));
    } else if (said.includes('hold')) {
      await new Promise((resolve) => cancels.set(taskId, resolve));
      cancels.delete(taskId);
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_CANCELED, 'cancelled by the client'));
    } else if (said.includes('fail')) {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, 'the agent failed on purpose'));
    } else {
      bus.publish(chunk(taskId, contextId, 'Echo: ', false, false));
      if (said.includes('gate')) {
        await new Promise((resolve) => releases.push(resolve));
      }
      bus.publish(chunk(taskId, contextId, said, true, false));
      bus.publish(chunk(taskId, contextId, '!', true, true));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED, undefined));
    }
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    const resolve = cancels.get(taskId);
    if (resolve) {
      resolve();
    } else {
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', metadata: undefined,
        status: { state: TaskState.TASK_STATE_CANCELED, timestamp: new Date().toISOString(), message: undefined } }));
      bus.finished();
    }
  }
}

const card = {
  name: 'js-test-agent',
  description: 'The @a2a-js/sdk test agent: echoes, asks for a city, holds until cancelled.',
  supportedInterfaces: [],
  provider: { organization: 'Bellows tests', url: 'https://example.invalid/bellows' },
  version: '1.0.0',
  documentationUrl: undefined,
  iconUrl: undefined,
  capabilities: { streaming: process.env.STREAMING !== 'false', pushNotifications: true, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the text back.', tags: ['test'], examples: ['hello'],
    inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
};

const pushes = new InMemoryPushNotificationStore();
const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new TestAgent(),
  new DefaultExecutionEventBusManager(), pushes, new DefaultPushNotificationSender(pushes));
const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
app.post('/test/release', (req, res) => {
  const waiting = releases;
  releases = [];
  waiting.forEach((resolve) => resolve());
  res.json({ released: waiting.length });
});
app.use('/a2a', (req, res, next) => {
  process.stderr.write(JSON.stringify({ headers: req.headers }) + '\n');
  const token = process.env.A2A_TOKEN;
  if (token && req.headers.authorization !== 'Bearer ' + token) {
    // A careless server that echoes what it refused: the client must not repeat it.
    res.status(401).json({ error: { code: 401, status: 'UNAUTHENTICATED',
      message: 'a bearer token is required, not ' + (req.headers.authorization ?? 'nothing') } });
    return;
  }
  next();
});
app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));

const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  card.supportedInterfaces.push(
    { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION });
  if (process.env.PREFER === 'HTTP+JSON') {
    card.supportedInterfaces.reverse();
  }
  process.stdout.write(JSON.stringify({ url: base }) + '\n');
});
process.stdin.on('end', () => process.exit(0));   // the test closed our stdin: it is done with us
process.stdin.resume();
