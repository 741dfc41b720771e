// An MCP server whose tool "big" answers with one text of $BIG_MB megabytes (default 50).
const readline = require('readline');
const megabytes = Number(process.env.BIG_MB || 50);
function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}
readline.createInterface({input: process.stdin}).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    send({jsonrpc: '2.0', id: message.id, result: {protocolVersion: message.params.protocolVersion,
      capabilities: {tools: {}}, serverInfo: {name: 'big', version: '1.0.0'}}});
  } else if (message.method === 'tools/list') {
    send({jsonrpc: '2.0', id: message.id, result: {tools: [
      {name: 'big', description: 'A huge result', inputSchema: {type: 'object', properties: {}}}]}});
  } else if (message.method === 'tools/call') {
    // Written in pieces, as a server streaming a file would: the line is never in one buffer here either.
    const piece = 'log line 0123456789 abcdefghijklmnopqrstuvwxyz\\n'.repeat(16 * 1024); // about 800 KB
    process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(message.id)
      + ',"result":{"content":[{"type":"text","text":"');
    const pieces = Math.ceil(megabytes * 1024 * 1024 / piece.length);
    let written = 0;
    const writeMore = () => {
      while (written < pieces) {
        written++;
        if (!process.stdout.write(piece)) {
          process.stdout.once('drain', writeMore);
          return;
        }
      }
      process.stdout.write('end of it"}]}}\n');
    };
    writeMore();
  } else if (message.id !== undefined && message.method !== undefined) {
    send({jsonrpc: '2.0', id: message.id, result: {}});
  }
});
