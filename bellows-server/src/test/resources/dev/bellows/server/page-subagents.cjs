// Drives the Bellows page in a real headless Chromium through a run whose agent calls a
// sub-agent that calls another: each sub-agent is a nested card inside the card of the call that
// runs it, streaming its own thinking, calls and answer while it works (seen while the inner
// one's tool is held: it waits until this script writes the file RELEASE), marked done after, and
// still there after a reload.
// Writes a screenshot per state into OUT and prints what it saw as one JSON object.
// Usage: node page-subagents.cjs URL OUT RELEASE (PLAYWRIGHT = the path of playwright-core,
// BROWSER_WS = the endpoint page-browser.cjs printed).
"use strict";
const { chromium } = require(process.env.PLAYWRIGHT);
const fs = require("fs");
const path = require("path");

const [url, out, release] = process.argv.slice(2);
const seen = { consoleErrors: [], steps: [] };

async function main() {
  const browser = await chromium.connect(process.env.BROWSER_WS);
  try {
    const context = await browser.newContext({ viewport: { width: 1180, height: 900 }, colorScheme: "light" });
    const page = await context.newPage();
    page.on("console", (message) => { if (message.type() === "error") seen.consoleErrors.push(message.text()); });
    page.on("pageerror", (error) => seen.consoleErrors.push(String(error)));
    const shot = async (name) => {
      await page.screenshot({ path: path.join(out, name + ".png") });
      seen.steps.push(name);
    };
    const cards = () => page.$$eval(".agent", (a) => a.map((x) => ({
      name: x.querySelector(".agent-name").textContent,
      task: x.querySelector(".agent-task").textContent,
      state: x.querySelector(".agent-state").textContent,
      depth: (function depth(n) { let d = 0; for (let p = n.parentElement; p; p = p.parentElement) if (p.classList.contains("agent")) d++; return d; })(x),
      inCallOf: x.closest(".tool").querySelector(".tool-name").textContent,
      text: x.querySelector(".agent-body").innerText,
    })));

    await page.goto(url);
    await page.waitForSelector("#empty:not([hidden])");
    await page.fill("#input", "What is 40 + 2? Have it checked.");
    await page.keyboard.press("Enter");

    // while the inner sub-agent's tool is held: both cards, nested, working
    await page.waitForSelector(".agent .agent .tool .tool-state:has-text('Running')");
    seen.working = await cards();
    seen.researcherThinking = await page.$$eval(".agent > .agent-body > .thinking", (t) => t.length);
    await shot("21-subagents-working");
    fs.writeFileSync(release, "go");

    await page.waitForSelector(".answer:has-text('The researcher found')");
    await page.waitForSelector("#send:not([hidden])");
    seen.done = await cards();
    seen.topLevelCards = await page.$$eval(".assistant > .tool", (t) => t.map((x) => x.querySelector(".tool-name").textContent));
    await shot("22-subagents-done");
    await page.reload();
    await page.waitForSelector(".answer:has-text('The researcher found')");
    seen.afterReload = await cards();
  } finally {
    await browser.close();
  }
}

main().then(() => {
  process.stdout.write(JSON.stringify(seen) + "\n");
}, (error) => {
  seen.error = String(error && error.stack || error);
  process.stdout.write(JSON.stringify(seen) + "\n");
  process.exitCode = 1;
});
