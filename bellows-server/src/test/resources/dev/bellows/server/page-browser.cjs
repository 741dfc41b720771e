// One headless Chromium (Debian's) for all of PageTest's drivers, launched with playwright-core
// as a browser server: prints its WebSocket endpoint as one JSON line, and closes the browser
// when its standard input ends (the test closes it, or the test's JVM is gone). Each driver
// connects with chromium.connect and works in a browser context of its own.
// Usage: node page-browser.cjs (PLAYWRIGHT = the path of playwright-core).
"use strict";
const { chromium } = require(process.env.PLAYWRIGHT);

(async () => {
  const server = await chromium.launchServer({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
      // page-cross-origin.cjs's DNS-rebinding name: the attacker's domain answering 127.0.0.1
      "--host-resolver-rules=MAP attacker.example 127.0.0.1"],
  });
  process.stdin.on("end", async () => {
    await server.close();
    process.exit(0);
  });
  process.stdin.resume();
  process.stdout.write(JSON.stringify({ ws: server.wsEndpoint() }) + "\n");
})().catch((error) => {
  process.stdout.write(JSON.stringify({ error: String(error && error.stack || error) }) + "\n");
  process.exit(1);
});
