// The official AG-UI client (@ag-ui/client's HttpAgent, verification on) with a tool of its own:
// the model calls it, the run ends with the call pending, the client carries it out and sends
// the result as a tool message in its next run, which carries the run on. Every event is also
// validated with @ag-ui/core's schemas. Prints one JSON object.
// Usage: NODE_PATH=<node_modules> node client-tools.cjs URL
"use strict";
const { HttpAgent } = require("@ag-ui/client");
const { EventSchemas } = require("@ag-ui/core/schemas");

const url = process.argv[2];
const warnings = [];
console.warn = (...args) => { warnings.push(args.map(String).join(" ")); };

const tools = [{
  name: "pick_colour",
  description: "Asks the user to pick a colour from the options.",
  parameters: { type: "object", properties: { options: { type: "array", items: { type: "string" } } }, required: ["options"] },
}];

async function run(agent) {
  const record = { types: [], invalid: [], error: null, result: undefined, pending: null, calls: [] };
  try {
    const outcome = await agent.runAgent({ tools }, {
      onEvent({ event }) {
        record.types.push(event.type);
        const checked = EventSchemas.safeParse(event);
        if (!checked.success) record.invalid.push({ type: event.type, issues: checked.error.issues });
      },
      onToolCallEndEvent({ toolCallName, toolCallArgs, event }) {
        record.calls.push({ id: event.toolCallId, name: toolCallName, args: toolCallArgs });
      },
      onRunFinishedEvent(params) {
        if (params.outcome === "success") record.pending = params.pendingToolCallIds;
      },
      onRunFailed({ error }) { record.error = String(error && error.message || error); },
    });
    record.result = outcome.result;
  } catch (e) {
    record.error = String(e && e.message || e);
  }
  return record;
}

(async () => {
  const out = {};
  const agent = new HttpAgent({ url, threadId: "client-tools" });
  agent.addMessage({ id: "u1", role: "user", content: "Paint the fence." });
  out.first = await run(agent);
  // the application carries its tool out and answers with a tool message
  for (const id of out.first.pending || []) {
    const call = out.first.calls.find((c) => c.id === id);
    agent.addMessage({ id: "tool-" + id, role: "tool", toolCallId: id,
      content: "the user picked " + (call ? call.args.options[1] : "?") });
  }
  out.second = await run(agent);
  out.roles = agent.messages.map((m) => m.role);
  out.warnings = warnings;
  process.stdout.write(JSON.stringify(out) + "\n");
})().catch((e) => {
  process.stdout.write(JSON.stringify({ crashed: String(e && e.stack || e) }) + "\n");
  process.exitCode = 1;
});
