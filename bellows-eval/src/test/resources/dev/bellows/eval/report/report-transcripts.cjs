// Opens an evaluation's report.html (a file: URL) in a real headless Chromium (Debian's) with
// playwright-core, expands every run with the page's "Expand all" button and prints what each
// run's transcript shows, as one JSON object: for each transcript (in the page's order) its
// events reference and its entries, each [class, text]. Usage: node report-transcripts.cjs
// FILE_URL (PLAYWRIGHT = the path of playwright-core, CHROMIUM = the browser).
"use strict";
const { chromium } = require(process.env.PLAYWRIGHT);

const [url] = process.argv.slice(2);
const seen = { consoleErrors: [], dialogs: [], requests: [] };

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--disable-dev-shm-usage"],
  });
  try {
    const page = await browser.newPage();
    page.on("console", (message) => { if (message.type() === "error" || message.type() === "warning") seen.consoleErrors.push(message.text()); });
    page.on("pageerror", (error) => seen.consoleErrors.push(String(error)));
    page.on("dialog", async (dialog) => { seen.dialogs.push(dialog.message()); await dialog.dismiss(); });
    page.on("request", (request) => { if (request.url() !== url) seen.requests.push(request.url()); });
    await page.goto(url, { waitUntil: "load" });
    await page.click("button[data-runs=open]");
    seen.transcripts = await page.$$eval(".transcript", (boxes) => boxes.map((box) => ({
      events: box.getAttribute("data-events"),
      drawn: box.classList.contains("drawn"),
      entries: Array.from(box.children).filter((e) => e.tagName !== "SCRIPT")
        .map((e) => [e.className, e.tagName === "DETAILS" ? e.querySelector("summary").textContent + ": " + e.querySelector("pre").textContent : e.innerText]),
    })));
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
