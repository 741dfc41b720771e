// A minimal Streamable HTTP MCP server on the official TypeScript SDK (installed with the
// reference servers; run with NODE_PATH pointing at their node_modules), for a notification
// outside a call: the tool "grow" answers at once, and afterwards adds the tool "extra". The
// SDK then sends notifications/tools/list_changed, which belongs to no request and so can only
// go out on the client's standalone GET stream. The SDK drops such a notification while no GET
// stream is open, and cannot tell when one is, so it is sent again every 100 ms until the
// client lists the tools again. Prints "listening on port N" when ready, and what it sent.
const http = require('http');
const { randomUUID } = require('crypto');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');

const sessions = new Map();

function newSession() {
  const session = { grown: false, listedSince: false };
  const server = new McpServer({ name: 'list-changed', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } });
  server.registerTool('grow', { description: 'Adds the tool extra after answering', inputSchema: {} }, async () => {
    setTimeout(() => {
      session.grown = true;
      session.listedSince = false;
      server.registerTool('extra', { description: 'Added later', inputSchema: {} },
        async () => ({ content: [{ type: 'text', text: 'extra is here' }] }));
      process.stdout.write('list_changed sent\n');
      const again = setInterval(() => {
        if (session.listedSince) {
          clearInterval(again);
          process.stdout.write('tools listed again\n');
        } else {
          server.sendToolListChanged();
        }
      }, 100);
    }, 50);
    return { content: [{ type: 'text', text: 'growing' }] };
  });
  session.transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, session),
  });
  session.server = server;
  return session;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined));
    req.on('error', reject);
  });
}

const httpServer = http.createServer(async (req, res) => {
  try {
    if (!req.url.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    const id = req.headers['mcp-session-id'];
    let session = id ? sessions.get(id) : undefined;
    if (!session) {
      if (id || req.method !== 'POST') {
        res.writeHead(id ? 404 : 400).end();
        return;
      }
      session = newSession();
      await session.server.connect(session.transport);
    }
    if (req.method === 'POST') {
      const body = await readBody(req);
      if (body && body.method === 'tools/list' && session.grown) {
        session.listedSince = true;
      }
      await session.transport.handleRequest(req, res, body);
    } else {
      await session.transport.handleRequest(req, res);
    }
  } catch (e) {
    process.stderr.write(String((e && e.stack) || e) + '\n');
    if (!res.headersSent) {
      res.writeHead(500).end();
    }
  }
});
httpServer.listen(0, '127.0.0.1', () => {
  process.stdout.write('listening on port ' + httpServer.address().port + '\n');
});
