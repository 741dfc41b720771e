// The page against a server that asks for a token: the first message gets 401, the page asks
// for the token; a wrong one is refused and the page says so when it asks again; with the right
// one the same message goes through. Prints what it saw as JSON.
// Usage: node page-token.cjs URL OUT TOKEN (PLAYWRIGHT = the path of playwright-core,
// BROWSER_WS = the endpoint page-browser.cjs printed).
"use strict";
const { chromium } = require(process.env.PLAYWRIGHT);
const path = require("path");

const [url, out, token] = process.argv.slice(2);
const seen = { consoleErrors: [] };

(async () => {
  // the class's one browser (page-browser.cjs); close() ends only this connection and its contexts
  const browser = await chromium.connect(process.env.BROWSER_WS);
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    page.on("pageerror", (error) => seen.consoleErrors.push(String(error)));
    await page.goto(url);
    await page.fill("#input", "Hello?");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#token-dialog[open]");
    seen.refusedAtFirst = await page.isVisible("#token-refused");
    await page.fill("#token-input", "not-" + token);
    await page.click("#token-form button.primary");
    await page.waitForSelector("#token-dialog[open] #token-refused:visible");
    seen.refusedText = await page.textContent("#token-refused");
    await page.screenshot({ path: path.join(out, "11-token-refused.png") });
    await page.fill("#token-input", token);
    await page.screenshot({ path: path.join(out, "11-token.png") });
    await page.click("#token-form button.primary");
    await page.waitForSelector(".answer");
    await page.waitForSelector("#send:not([hidden])");
    seen.answer = await page.textContent(".answer");
    seen.errors = await page.$$eval(".notice.error", (n) => n.map((x) => x.textContent));
    seen.pageHasToken = (await page.content()).includes(token);
    await page.screenshot({ path: path.join(out, "12-after-token.png") });
  } finally {
    await browser.close();
  }
})().then(() => process.stdout.write(JSON.stringify(seen) + "\n"), (error) => {
  seen.error = String(error && error.stack || error);
  process.stdout.write(JSON.stringify(seen) + "\n");
  process.exitCode = 1;
});
