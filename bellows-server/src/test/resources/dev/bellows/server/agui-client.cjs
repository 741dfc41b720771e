// The official AG-UI client (@ag-ui/client's HttpAgent, whose pipeline verifies the order of
// events) runs agents on a Bellows server; every event is also validated with @ag-ui/core's
// own schemas. Prints one JSON object per run.
// Usage: NODE_PATH=<node_modules> node agui-client.cjs URL
"use strict";
const { HttpAgent } = require("@ag-ui/client");
const { EventSchemas } = require("@ag-ui/core/schemas");

const url = process.argv[2];
const warnings = [];
const originalWarn = console.warn;
console.warn = (...args) => { warnings.push(args.map(String).join(" ")); };

async function run(agent, text, extra) {
  const record = { types: [], invalid: [], error: null, result: undefined, toolNames: [], stateAfter: null };
  agent.addMessage({ id: "m-" + Math.random().toString(36).slice(2), role: "user", content: text });
  try {
    const outcome = await agent.runAgent(extra || {}, {
      onEvent({ event }) {
        record.types.push(event.type);
        const checked = EventSchemas.safeParse(event);
        if (!checked.success) record.invalid.push({ type: event.type, issues: checked.error.issues });
        if (event.type === "TOOL_CALL_START") record.toolNames.push(event.toolCallName);
      },
      onRunFailed({ error }) { record.error = String(error && error.message || error); },
    });
    record.result = outcome.result;
  } catch (e) {
    record.error = String(e && e.message || e);
  }
  record.stateAfter = agent.state;
  record.messageRoles = agent.messages.map((m) => m.role);
  return record;
}

(async () => {
  const out = {};
  const agent = new HttpAgent({ url, threadId: "interop-thread" });
  out.first = await run(agent, "What is 40 + 2?");
  out.second = await run(agent, "And what is 40 + 3?");
  const failing = new HttpAgent({ url, threadId: "interop-failing" });
  out.failing = await run(failing, "This one fails.");
  out.warnings = warnings;
  process.stdout.write(JSON.stringify(out) + "\n");
})().catch((e) => {
  process.stdout.write(JSON.stringify({ crashed: String(e && e.stack || e) }) + "\n");
  process.exitCode = 1;
});
