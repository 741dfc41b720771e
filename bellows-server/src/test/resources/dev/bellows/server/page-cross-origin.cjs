// A hostile page on another origin (http://localhost:OTHER/, served by the test) that tries to
// make the agent server (http://127.0.0.1:PORT/) run, as issue 31 found any page could; then a
// DNS-rebinding page: the server reached under a name of the attacker's (attacker.example,
// mapped to 127.0.0.1 by page-browser.cjs's resolver rules: nothing leaves the machine).
// Prints what it saw as JSON.
// Usage: node page-cross-origin.cjs ATTACKER_URL SERVER_PORT (PLAYWRIGHT, BROWSER_WS as for page-driver.cjs).
"use strict";
const { chromium } = require(process.env.PLAYWRIGHT);

const [attackerUrl, serverPort] = process.argv.slice(2);
const seen = { consoleErrors: [] };

(async () => {
  const browser = await chromium.connect(process.env.BROWSER_WS);
  try {
    const page = await browser.newPage();
    await page.goto(attackerUrl);
    await page.waitForSelector("body[data-done]", { timeout: 60000 });
    seen.crossOrigin = JSON.parse(await page.textContent("#log"));

    // DNS rebinding: the attacker's name now resolves to the server; its page is "same origin"
    const rebound = await page.goto(`http://attacker.example:${serverPort}/`);
    seen.reboundPageStatus = rebound.status();
    seen.reboundRunStatus = await page.evaluate(async () => {
      const body = JSON.stringify({ threadId: "rebound", runId: "r1", messages: [{ id: "m1", role: "user", content: "Write the file." }],
        tools: [], context: [], state: {}, forwardedProps: {} });
      const response = await fetch("/agui", { method: "POST", headers: { "Content-Type": "application/json" }, body });
      return response.status;
    });
  } finally {
    await browser.close();
  }
})().then(() => process.stdout.write(JSON.stringify(seen) + "\n"), (error) => {
  seen.error = String(error && error.stack || error);
  process.stdout.write(JSON.stringify(seen) + "\n");
  process.exitCode = 1;
});
