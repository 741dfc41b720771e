// Opens an evaluation's report.html (a file: URL) in a real headless Chromium (Debian's) with
// playwright-core, looks at it as a person would (the failing case and its reason, a run's
// transcript expanded, the hostile case, the filter, the chart, the dark theme) and prints
// what it saw as one JSON object; screenshots go into OUT.
// Usage: node report-page.cjs FILE_URL OUT (PLAYWRIGHT = the path of playwright-core,
// CHROMIUM = the browser).
"use strict";
const { chromium } = require(process.env.PLAYWRIGHT);
const path = require("path");

const [url, out] = process.argv.slice(2);
const seen = { consoleErrors: [], dialogs: [], requests: [] };

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--disable-dev-shm-usage"],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
    const page = await context.newPage();
    page.on("console", (message) => { if (message.type() === "error" || message.type() === "warning") seen.consoleErrors.push(message.text()); });
    page.on("pageerror", (error) => seen.consoleErrors.push(String(error)));
    page.on("dialog", async (dialog) => { seen.dialogs.push(dialog.message()); await dialog.dismiss(); });
    page.on("request", (request) => { if (request.url() !== url) seen.requests.push(request.url()); });

    await page.goto(url, { waitUntil: "load" });
    seen.title = await page.title();
    seen.verdict = await page.textContent(".verdict");
    await page.screenshot({ path: path.join(out, "01-report.png"), fullPage: true });

    // the failing case: its row, and its reasons shown without a click
    const failed = page.locator("tr.case-row.failed");
    seen.failedRows = await failed.count();
    seen.failedCase = await failed.locator(".case-link").textContent();
    seen.failedReasonsVisible = await failed.locator(".reasons").isVisible();
    seen.failedReasons = await failed.locator(".reasons").innerText();

    // a transcript expands: the passing weather case, then its first run
    await page.click("tr.case-row >> nth=0 >> .case-link");
    const weather = page.locator("#case-0");
    seen.caseOpenedByLink = await weather.evaluate((d) => d.open);
    seen.transcriptVisibleBefore = await weather.locator(".transcript").first().isVisible();
    await weather.locator("details.run > summary").first().click();
    const transcript = weather.locator(".transcript").first();
    seen.transcriptVisibleAfter = await transcript.isVisible();
    seen.toolName = await transcript.locator(".t-tool .t-name").first().textContent();
    seen.toolArguments = await transcript.locator(".t-tool .t-args").first().textContent();
    seen.toolResult = await transcript.locator(".t-tool .t-out").first().textContent();
    seen.answer = await transcript.locator(".t-end").first().innerText();
    await weather.locator("details.run").first().screenshot({ path: path.join(out, "02-transcript.png") });

    // the hostile case: its answer and arguments are text, nothing of them ran
    const hostile = page.locator("details.case", { hasText: "hostile-" });
    await hostile.locator("summary").first().click();
    await hostile.locator("details.run > summary").first().click();
    seen.hostileId = await hostile.locator(".case-id").textContent();
    seen.hostileAnswer = await hostile.locator(".t-end").first().textContent();
    seen.hostileArguments = await hostile.locator(".t-args").first().textContent();
    seen.scripts = await page.locator("script:not([type='application/json'])").count();
    seen.hostileMessage = await hostile.locator(".t-msg").nth(1).textContent();
    seen.images = await page.locator("img, iframe").count();
    await hostile.screenshot({ path: path.join(out, "03-hostile.png") });

    // the filter: only the failed case
    await page.click("button[data-filter=failed]");
    seen.rowsShownWhenFailed = await page.locator("tr.case-row:visible").count();
    await page.click("button[data-filter=all]");
    seen.rowsShownWhenAll = await page.locator("tr.case-row:visible").count();

    seen.chartRows = await page.locator("#chart svg g").count();
    seen.chartFell = await page.locator("#chart svg g.fell").count();
    await page.locator("#chart").screenshot({ path: path.join(out, "04-chart.png") });

    await page.emulateMedia({ colorScheme: "dark" });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(out, "05-dark.png") });

    await page.setViewportSize({ width: 420, height: 900 });
    await page.screenshot({ path: path.join(out, "06-narrow.png") });
    seen.horizontalScroll = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
    await context.close();

    // without the script: the summary, the table and the chart, and where each transcript's events are
    const still = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light", javaScriptEnabled: false });
    const plain = await still.newPage();
    await plain.goto(url, { waitUntil: "load" });
    seen.noScriptRows = await plain.locator("tr.case-row:visible").count();
    seen.noScriptCards = await plain.locator(".cards .card:visible").count();
    seen.noScriptChart = await plain.locator("#chart svg").isVisible();
    const failedRun = plain.locator("details.run[open] .transcript").first();
    seen.noScriptHint = await failedRun.evaluate((box) => getComputedStyle(box, "::before").content);
    seen.noScriptAnswer = await failedRun.locator(".t-end").innerText();
    await plain.screenshot({ path: path.join(out, "07-no-script.png"), fullPage: true });
    await still.close();
  } finally {
    await browser.close();
  }
}

main().then(() => {
  process.stdout.write(JSON.stringify(seen) + "\n");
}, (error) => {
  seen.error = String(error && error.stack || error);
  process.stdout.write(JSON.stringify(seen) + "\n");
  process.exit(1);
});
