// Drives the Bellows page in a real headless Chromium (Debian's) with playwright-core, as a
// person would: types, presses Enter, watches the run, stops one, reloads, switches the theme.
// Writes a screenshot per state into OUT and prints what it saw as one JSON object.
// Usage: node page-driver.cjs URL OUT (PLAYWRIGHT = the path of playwright-core,
// BROWSER_WS = the endpoint page-browser.cjs printed).
"use strict";
const { chromium } = require(process.env.PLAYWRIGHT);
const path = require("path");

const [url, out] = process.argv.slice(2);
const seen = { dialogs: [], consoleErrors: [], steps: [] };

async function main() {
  // the class's one browser (page-browser.cjs); close() ends only this connection and its contexts
  const browser = await chromium.connect(process.env.BROWSER_WS);
  try {
    const context = await browser.newContext({ viewport: { width: 1180, height: 820 }, colorScheme: "light" });
    const page = await context.newPage();
    page.on("dialog", async (dialog) => { seen.dialogs.push(dialog.message()); await dialog.dismiss(); });
    page.on("console", (message) => { if (message.type() === "error") seen.consoleErrors.push(message.text()); });
    page.on("pageerror", (error) => seen.consoleErrors.push(String(error)));
    const shot = async (name) => {
      await page.screenshot({ path: path.join(out, name + ".png") });
      seen.steps.push(name);
    };

    await page.goto(url);
    await page.waitForSelector("#empty:not([hidden])");
    await shot("01-empty");

    // Shift+Enter makes a new line and sends nothing
    await page.click("#input");
    await page.keyboard.type("first line");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("second line");
    seen.shiftEnterValue = await page.inputValue("#input");
    seen.turnsAfterShiftEnter = await page.locator(".user").count();
    await page.fill("#input", "");

    // Enter sends
    await page.keyboard.type("What is 40 + 2?");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".user");
    seen.userText = await page.textContent(".user");

    await page.waitForSelector(".thinking");
    await shot("02-thinking");
    seen.thinkingOpen = await page.$eval(".thinking", (d) => d.open);

    // the tool card appears as soon as the name has streamed, its arguments still coming; the
    // call goes on until this file says its card was seen (TOOL_SEEN, which the test's tool waits for)
    await page.waitForSelector(".tool .tool-name:text('add')");
    seen.toolStateAtName = await page.textContent(".tool .tool-state");
    await shot("03-tool-call");
    require("fs").writeFileSync(process.env.TOOL_SEEN, "seen\n");

    await page.waitForSelector(".tool .tool-state.ok");
    await page.waitForSelector(".plan li");
    await shot("04-plan");
    await page.waitForSelector(".plan li.completed");
    seen.planSteps = await page.$$eval(".plan li", (items) => items.map((li) => li.className + ":" + li.textContent));

    // the answer shows while it streams (the loop-ending call's argument), then stays, once
    await page.waitForSelector(".answer.streaming h2");
    seen.answerWhileRunning = await page.isVisible("#stop");
    await shot("04b-answer-streaming");
    await page.waitForSelector("#send:not([hidden])");
    seen.answerHeadingCount = await page.locator(".answer h2").count();
    await page.click(".tool details.args summary");
    await page.click(".tool details.result summary");
    await shot("05-answer");
    seen.answer = await page.$$eval(".answer", (answers) => answers.map((a) => ({
      text: a.textContent,
      headings: [...a.querySelectorAll("h2")].map((h) => h.textContent),
      strong: [...a.querySelectorAll("strong")].map((s) => s.textContent),
      code: [...a.querySelectorAll("pre code")].map((c) => c.textContent),
      items: [...a.querySelectorAll("li")].map((l) => l.textContent),
      links: [...a.querySelectorAll("a")].map((l) => l.getAttribute("href")),
      scripts: a.querySelectorAll("script, img, iframe").length,
      html: a.innerHTML,
    })));
    seen.thinkingFoldedAfter = await page.$eval(".thinking", (d) => !d.open);
    seen.toolNames = await page.$$eval(".tool .tool-name", (names) => names.map((n) => n.textContent));
    seen.toolResult = await page.$eval(".tool pre.result", (p) => p.textContent);

    // the conversation is kept across a reload
    await page.reload();
    await page.waitForSelector(".answer h2");
    seen.afterReload = {
      user: await page.textContent(".user"),
      threads: await page.$$eval(".thread .open", (t) => t.map((x) => x.textContent)),
      answers: await page.locator(".answer h2").count(),
    };
    await shot("06-reloaded");

    // dark
    await page.click("#theme");
    seen.theme = await page.$eval("html", (h) => h.dataset.theme);
    await shot("07-dark");

    // a second conversation, stopped while its tool runs
    await page.click("#new-chat");
    await page.waitForSelector("#empty:not([hidden])");
    await page.fill("#input", "Wait for me, please.");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".tool .tool-state:text('Running')");
    seen.stopVisible = await page.isVisible("#stop");
    await shot("08-running");
    await page.click("#stop");
    await page.waitForSelector(".notice:text('Stopped.')");
    await page.waitForSelector("#send:not([hidden])");
    await shot("09-stopped");
    seen.threadsAtEnd = await page.$$eval(".thread .open", (t) => t.map((x) => x.textContent));

    // a narrow screen, light again: the conversations are behind the menu button; the first
    // one opens from there, and the list goes away again
    await page.click("#theme");
    await page.setViewportSize({ width: 420, height: 820 });
    await page.click("#open-sidebar");
    await page.click(".thread .open >> text='What is 40 + 2?'");
    await page.waitForSelector(".app:not(.sidebar-open) .answer h2");
    seen.narrowOpened = await page.textContent(".user");
    await page.waitForFunction(() => document.getElementById("sidebar").getBoundingClientRect().right <= 0);
    seen.narrowSidebarHidden = await page.$eval("#sidebar", (s) => s.getBoundingClientRect().right <= 0);
    await shot("10-narrow");
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
