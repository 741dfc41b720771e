// The official AG-UI client (@ag-ui/client's HttpAgent, which verifies the order of events and
// checks that a resume answers every pending interrupt) on two bellows serve processes that
// share one PostgreSQL: a run stops at a call waiting for approval (an interrupt), the next run,
// sent to the OTHER server, approves it; then another call waits, and is denied on the first
// server. Every event is also validated with @ag-ui/core's own schemas.
// Usage: NODE_PATH=<node_modules> node approvals-client.cjs URL_A URL_B THREAD
"use strict";
const { HttpAgent } = require("@ag-ui/client");
const { EventSchemas } = require("@ag-ui/core/schemas");

const [urlA, urlB, threadId] = process.argv.slice(2);
const warnings = [];
console.warn = (...args) => { warnings.push(args.map(String).join(" ")); };

async function run(agent, parameters) {
  const record = { types: [], invalid: [], error: null, result: undefined, outcome: null, interrupts: [], results: [] };
  try {
    const outcome = await agent.runAgent(parameters || {}, {
      onEvent({ event }) {
        record.types.push(event.type);
        const checked = EventSchemas.safeParse(event);
        if (!checked.success) record.invalid.push({ type: event.type, issues: checked.error.issues });
        if (event.type === "RUN_FINISHED") record.outcome = event.outcome || null;
        if (event.type === "TOOL_CALL_RESULT") record.results.push({ toolCallId: event.toolCallId, content: event.content });
      },
      onRunFailed({ error }) { record.error = String(error && error.message || error); },
    });
    record.result = outcome.result;
  } catch (e) {
    record.error = String(e && e.message || e);
  }
  record.interrupts = agent.pendingInterrupts.map((i) => ({ id: i.id, reason: i.reason, toolCallId: i.toolCallId, message: i.message }));
  return record;
}

function say(agent, text) {
  agent.addMessage({ id: "m-" + Math.random().toString(36).slice(2), role: "user", content: text });
}

(async () => {
  const out = {};
  const agent = new HttpAgent({ url: urlA, threadId });
  say(agent, "Write a.txt");
  out.first = await run(agent);

  // a run that does not answer the interrupt: the client itself refuses it
  out.unanswered = await run(agent);

  // the other server answers it: the waiting run is in the shared store
  agent.url = urlB;
  out.approved = await run(agent, {
    resume: out.first.interrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } })),
  });

  say(agent, "Now write b.txt");
  out.second = await run(agent);
  agent.url = urlA;
  out.denied = await run(agent, {
    resume: out.second.interrupts.map((i) => ({ interruptId: i.id, status: "resolved",
      payload: { approved: false, reason: "not today" } })),
  });
  out.warnings = warnings;
  process.stdout.write(JSON.stringify(out) + "\n");
})().catch((e) => {
  process.stdout.write(JSON.stringify({ crashed: String(e && e.stack || e) }) + "\n");
  process.exitCode = 1;
});
