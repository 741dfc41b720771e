// An MCP server for the approval tests that records every call it gets, speaking
// newline-delimited JSON-RPC on stdio by hand. Each tools/call is appended to $CALL_LOG as one
// JSON line {"tool": ..., "arguments": ...} before it is answered, so the test counts what ran.
//   write_file {path, content?}   answers "wrote PATH"
//   delete_file {path}            answers "deleted PATH"
//   hang {path}                   is recorded, then never answered (a call in flight to kill)
const fs = require('fs');
const readline = require('readline');

const path = {type: 'object', properties: {path: {type: 'string'}, content: {type: 'string'}}, required: ['path']};
const tools = [
  {name: 'write_file', description: 'Writes a file', inputSchema: path},
  {name: 'delete_file', description: 'Deletes a file', inputSchema: path},
  {name: 'hang', description: 'Never answers', inputSchema: path},
];

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

const rl = readline.createInterface({input: process.stdin});
rl.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    send({jsonrpc: '2.0', id: message.id, result: {
      protocolVersion: message.params.protocolVersion,
      capabilities: {tools: {}},
      serverInfo: {name: 'recording', version: '1.0.0'}}});
  } else if (message.method === 'tools/list') {
    send({jsonrpc: '2.0', id: message.id, result: {tools}});
  } else if (message.method === 'tools/call') {
    const name = message.params.name;
    const args = message.params.arguments || {};
    fs.appendFileSync(process.env.CALL_LOG, JSON.stringify({tool: name, arguments: args}) + '\n');
    if (name === 'hang') {
      return;
    }
    const verb = name === 'write_file' ? 'wrote ' : 'deleted ';
    send({jsonrpc: '2.0', id: message.id, result: {content: [{type: 'text', text: verb + args.path}]}});
  } else if (message.id !== undefined && message.method !== undefined) {
    send({jsonrpc: '2.0', id: message.id, result: {}});
  }
});
rl.on('close', () => process.exit(0));
