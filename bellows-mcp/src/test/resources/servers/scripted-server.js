// A tiny MCP server for the tests, speaking newline-delimited JSON-RPC on stdio by hand so
// that it can misbehave on purpose:
//   tool "wait"      never answers (until cancelled); cancellations are appended to $CANCEL_LOG
//   tool "grow"      adds a tool "extra" and sends notifications/tools/list_changed
//   tool "pid"       answers with its process id
const fs = require('fs');
const readline = require('readline');

const tools = [
  {name: 'wait', description: 'Waits forever', inputSchema: {type: 'object', properties: {}}},
  {name: 'grow', description: 'Adds the tool extra', inputSchema: {type: 'object', properties: {}}},
  {name: 'pid', description: 'Its process id', inputSchema: {type: 'object', properties: {}}},
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
      capabilities: {tools: {listChanged: true}},
      serverInfo: {name: 'scripted', version: '1.0.0'}}});
  } else if (message.method === 'tools/list') {
    send({jsonrpc: '2.0', id: message.id, result: {tools}});
  } else if (message.method === 'tools/call') {
    const name = message.params.name;
    if (name === 'wait') {
      process.stderr.write('waiting forever on request ' + message.id + '\n');
    } else if (name === 'grow') {
      if (!tools.some((t) => t.name === 'extra')) {
        tools.push({name: 'extra', description: 'Added later', inputSchema: {type: 'object', properties: {}}});
      }
      send({jsonrpc: '2.0', id: message.id, result: {content: [{type: 'text', text: 'grown'}]}});
      send({jsonrpc: '2.0', method: 'notifications/tools/list_changed'});
    } else if (name === 'pid') {
      send({jsonrpc: '2.0', id: message.id, result: {content: [{type: 'text', text: String(process.pid)}]}});
    } else {
      send({jsonrpc: '2.0', id: message.id, result: {isError: true,
        content: [{type: 'text', text: 'no tool ' + name}]}});
    }
  } else if (message.method === 'notifications/cancelled') {
    if (process.env.CANCEL_LOG) {
      fs.appendFileSync(process.env.CANCEL_LOG, JSON.stringify(message.params) + '\n');
    }
  } else if (message.id !== undefined && message.method !== undefined) {
    send({jsonrpc: '2.0', id: message.id, result: {}});
  }
});
rl.on('close', () => process.exit(0));
