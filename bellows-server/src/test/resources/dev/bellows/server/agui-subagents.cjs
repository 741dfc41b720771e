// The official AG-UI client (@ag-ui/client's HttpAgent, whose verifier checks SUBAGENT_STARTED /
// SUBAGENT_FINISHED / SUBAGENT_ERROR and every nested event's subagentRunId) runs agents that
// call sub-agents on a Bellows server; every event is also validated with @ag-ui/core's own
// schemas. Prints one JSON object: per thread, the events as received.
// Usage: NODE_PATH=<node_modules> node agui-subagents.cjs URL THREAD...
"use strict";
const { HttpAgent } = require("@ag-ui/client");
const { EventSchemas } = require("@ag-ui/core/schemas");

const url = process.argv[2];
const threads = process.argv.slice(3);
const warnings = [];
console.warn = (...args) => { warnings.push(args.map(String).join(" ")); };

async function run(threadId) {
  const agent = new HttpAgent({ url, threadId });
  const record = { events: [], invalid: [], error: null, result: undefined };
  agent.addMessage({ id: threadId + "-u1", role: "user", content: "Go." });
  try {
    const outcome = await agent.runAgent({}, {
      onEvent({ event }) {
        record.events.push(event);
        const checked = EventSchemas.safeParse(event);
        if (!checked.success) record.invalid.push({ type: event.type, issues: checked.error.issues });
      },
      onRunFailed({ error }) { record.error = String(error && error.message || error); },
    });
    record.result = outcome.result;
  } catch (e) {
    record.error = String(e && e.message || e);
  }
  record.subagentMessages = agent.messages.filter((m) => m.subagentRunId !== undefined).length;
  return record;
}

(async () => {
  const out = {};
  for (const thread of threads) out[thread] = await run(thread);
  out.warnings = warnings;
  process.stdout.write(JSON.stringify(out) + "\n");
})().catch((e) => {
  process.stdout.write(JSON.stringify({ crashed: String(e && e.stack || e) }) + "\n");
  process.exitCode = 1;
});
