// An MCP server over stdio with one tool, count: each call appends one line (its text argument)
// to the file named by the first argument before it is answered, so a test counts, across every
// worker process and its own server, how often each call was really made. Speaks, by hand, just
// the part of MCP a client needs: initialize, tools/list, tools/call, ping. Node, not a JVM: each
// bellows worker starts its own, before it polls, and a JVM's start-up was most of a worker's.
const fs = require('fs');
const readline = require('readline');

const calls = process.argv[2];
const tools = [{name: 'count', description: 'Records one call.',
  inputSchema: {type: 'object', properties: {text: {type: 'string'}}}}];

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

const rl = readline.createInterface({input: process.stdin});
rl.on('line', (line) => {
  if (!line.trim()) {
    return;
  }
  const message = JSON.parse(line);
  if (message.id === undefined) {
    return;                                   // a notification
  }
  if (message.method === 'initialize') {
    send({jsonrpc: '2.0', id: message.id, result: {
      protocolVersion: (message.params && message.params.protocolVersion) || '2025-06-18',
      capabilities: {tools: {}},
      serverInfo: {name: 'counting', version: '1'}}});
  } else if (message.method === 'tools/list') {
    send({jsonrpc: '2.0', id: message.id, result: {tools}});
  } else if (message.method === 'tools/call') {
    const text = String(((message.params && message.params.arguments) || {}).text || '');
    const fd = fs.openSync(calls, 'a');
    fs.writeSync(fd, text + '\n');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    send({jsonrpc: '2.0', id: message.id, result: {content: [{type: 'text', text: 'counted ' + text}]}});
  } else if (message.method === 'ping') {
    send({jsonrpc: '2.0', id: message.id, result: {}});
  } else {
    send({jsonrpc: '2.0', id: message.id, error: {code: -32601, message: 'no such method'}});
  }
});
rl.on('close', () => process.exit(0));
