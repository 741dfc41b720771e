// The official MCP TypeScript SDK's client against agents offered by a Bellows server over
// Streamable HTTP: lists them, calls one with a progress token, cancels one while its model
// answers, answers an approval asked by elicitation, and, as a client without elicitation,
// gets the approval refused. Prints one JSON object.
// Usage: NODE_PATH=<node_modules> node agents-client.cjs URL TOKEN
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const url = new URL(process.argv[2]);
const token = process.argv[3];

async function connect(capabilities, onElicit) {
  const client = new Client({ name: "bellows-test", version: "1.0.0" }, { capabilities });
  if (onElicit) {
    client.setRequestHandler(ElicitRequestSchema, onElicit);
  }
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: "Bearer " + token } },
  });
  await client.connect(transport);
  return { client, transport };
}

function text(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

async function main() {
  const out = {};
  const questions = [];
  const asking = await connect({ elicitation: {} }, async (request) => {
    questions.push(request.params.message);
    return { action: "accept", content: { approve: true } };
  });

  const listed = await asking.client.listTools();
  out.tools = listed.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));

  const progress = [];
  const answered = await asking.client.callTool({ name: "researcher", arguments: { task: "When does water boil?" } },
    undefined, { onprogress: (p) => progress.push(p) });
  out.researcher = { text: text(answered), isError: answered.isError === true, progress };

  const slowProgress = [];
  const controller = new AbortController();
  try {
    await asking.client.callTool({ name: "slow", arguments: { task: "Look it up" } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        slowProgress.push(p.message);
        if (String(p.message).startsWith("calling ")) {
          controller.abort("the person pressed stop");
        }
      },
    });
    out.slow = { cancelled: false, progress: slowProgress };
  } catch (e) {
    out.slow = { cancelled: true, error: String(e), progress: slowProgress };
  }

  const approved = await asking.client.callTool({ name: "writer", arguments: { task: "Save a note" } });
  out.writer = { text: text(approved), isError: approved.isError === true, questions };
  await asking.transport.terminateSession();
  await asking.client.close();

  const plain = await connect({}, null);
  const refused = await plain.client.callTool({ name: "guarded", arguments: { task: "Save a note" } });
  out.guarded = { text: text(refused), isError: refused.isError === true };
  const missing = await plain.client.callTool({ name: "researcher", arguments: {} }).then(
    (r) => ({ text: text(r), isError: r.isError === true }), (e) => ({ error: String(e) }));
  out.missingTask = missing;
  await plain.transport.terminateSession();
  await plain.client.close();
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.log(JSON.stringify({ crashed: String(e && e.stack || e) }));
  process.exitCode = 1;
});
