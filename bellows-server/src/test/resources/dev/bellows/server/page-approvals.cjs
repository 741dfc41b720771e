// Drives the Bellows page in a real headless Chromium through approvals: a call waits, the
// card shows it with Approve / Deny, the waiting call survives a reload, Deny asks for a
// reason (which the agent reads), and a later call is approved and runs. Along the way: the top
// bar says a call waits, the plan stops spinning when a run ends, a resumed run carries on its
// turn (one plan card), the notice refusing a message goes once a decision is made, and the
// decisions ("Denied: ...", "Approved.") are still on their cards after a reload.
// Writes a screenshot per state into OUT and prints what it saw as one JSON object.
// Usage: node page-approvals.cjs URL OUT (PLAYWRIGHT = the path of playwright-core,
// BROWSER_WS = the endpoint page-browser.cjs printed).
"use strict";
const { chromium } = require(process.env.PLAYWRIGHT);
const path = require("path");

const [url, out] = process.argv.slice(2);
const seen = { consoleErrors: [], steps: [] };

async function main() {
  // the class's one browser (page-browser.cjs); close() ends only this connection and its contexts
  const browser = await chromium.connect(process.env.BROWSER_WS);
  try {
    const context = await browser.newContext({ viewport: { width: 1180, height: 820 }, colorScheme: "light" });
    const page = await context.newPage();
    page.on("console", (message) => { if (message.type() === "error") seen.consoleErrors.push(message.text()); });
    page.on("pageerror", (error) => seen.consoleErrors.push(String(error)));
    const shot = async (name) => {
      await page.screenshot({ path: path.join(out, name + ".png") });
      seen.steps.push(name);
    };

    await page.goto(url);
    await page.waitForSelector("#empty:not([hidden])");
    await page.fill("#input", "Write the meeting notes.");
    await page.keyboard.press("Enter");

    // the call waits: its card says so, with the question and two buttons
    await page.waitForSelector(".approval button:text('Approve')");
    await page.waitForSelector("#send:not([hidden])");
    seen.waitingName = await page.textContent(".tool .tool-name");
    seen.waitingState = await page.textContent(".tool .tool-state");
    seen.question = await page.textContent(".approval p");
    seen.reasonHiddenAtFirst = await page.$eval(".approval input", (i) => i.hidden);
    seen.statusWhileWaiting = await page.textContent("#status");
    // the run has ended (it waits for a decision): nothing on the plan moves
    seen.planAnimationWhileWaiting = await page.$eval(".plan li.in_progress .box", (b) => getComputedStyle(b).animationName);
    await shot("11-approval-waiting");

    // the waiting call is still there after a reload
    await page.reload();
    await page.waitForSelector(".approval button:text('Approve')");
    seen.waitingAfterReload = await page.locator(".approval").count();
    seen.statusAfterReload = await page.textContent("#status");

    // a new message is refused while the call waits (twice: one notice)
    await page.fill("#input", "Hello?");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".notice:text('Decide on the waiting calls first')");
    await page.keyboard.press("Enter");
    seen.refusedNotices = await page.locator(".notice:text('Decide on the waiting calls first')").count();
    await page.fill("#input", "");

    // Deny asks for a reason; Enter in it denies
    await page.click(".approval button:text('Deny')");
    await page.waitForSelector(".approval input:not([hidden])");
    seen.reasonFocused = await page.$eval(".approval input", (i) => document.activeElement === i);
    await page.keyboard.type("keep them in the wiki");
    await shot("12-deny-reason");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".answer:has-text('I left the notes alone.')");
    await page.waitForSelector("#send:not([hidden])");
    seen.deniedState = await page.$$eval(".tool .tool-state", (s) => s.map((x) => x.textContent));
    seen.deniedResult = await page.$$eval(".tool pre.result", (p) => p.map((x) => x.textContent));
    seen.decideFirstAfterDecision = await page.locator(".notice:text('Decide on the waiting calls first')").count();
    seen.plansAfterResume = await page.locator(".plan").count();
    seen.statusAfterDecision = await page.textContent("#status");
    await shot("13-denied");
    await page.reload();
    await page.waitForSelector(".answer:has-text('I left the notes alone.')");
    seen.decisionsAfterDenialAndReload = await page.$$eval(".approval p", (p) => p.map((x) => x.textContent));

    // a later call, approved: it runs
    await page.fill("#input", "Write them after all.");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".approval button:text('Approve')");
    await page.waitForSelector("#send:not([hidden])");
    await page.click(".approval button:text('Approve')");
    await page.waitForSelector(".answer:has-text('Wrote the notes.')");
    await page.waitForSelector("#send:not([hidden])");
    seen.approvedResults = await page.$$eval(".tool pre.result", (p) => p.map((x) => x.textContent));
    seen.approvalsLeft = await page.locator(".approval button").count();
    seen.planAnimationAtEnd = await page.$$eval(".plan li .box", (b) => b.map((x) => getComputedStyle(x).animationName));
    await shot("14-approved");
    await page.reload();
    await page.waitForSelector(".answer:has-text('Wrote the notes.')");
    seen.decisionsAfterReload = await page.$$eval(".approval p", (p) => p.map((x) => x.textContent));
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
