// Debian's Chromium as every browser script launches it, and the one deadline of a browser wait.
//
// A wait for something the page does (a selector, an event, a navigation) is not a measure of
// speed: on a 2-core machine running four tests beside a CPU hog, a page that takes 3 s alone
// can take ten times that. Every wait of every page and context therefore has the same bound,
// WAIT_MS (BROWSER_WAIT_MS, default 4 minutes): a safety net for a page that never gets there,
// below nextest's kill of a hung test (5 minutes), so that the script still prints its findings.
import { chromium } from "playwright-core";

export const WAIT_MS = Number(process.env.BROWSER_WAIT_MS ?? 240000);

export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    timeout: WAIT_MS,
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(WAIT_MS);
    context.setDefaultNavigationTimeout(WAIT_MS);
    return context;
  };
  // A page of its own context: made through the `newContext` above.
  browser.newPage = async (options) => {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    page.on("close", () => context.close().catch(() => {}));
    return page;
  };
  return browser;
}
