// Where the signing page draws each field over its page, in Debian's Chromium: run by
// tests/tests/suite/placement.rs with LINK (a signer's link), PAGES and FIELDS (how
// many the page shows) and SHOTS. Once every page is
// drawn, reports each page's canvas (CSS px) and the boxes of the fields over it, relative to
// the canvas's top-left corner, and whether pdf.js left any form control on the page. Prints
// one JSON line of findings; the Rust test compares them with where pdftotext finds the words.
import { join } from "node:path";
import { chromium } from "playwright-core";

const env = process.env;
const browser = await chromium.launch({
  executablePath: env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const findings = { consoleErrors: [] };

try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on("console", (m) => m.type() === "error" && findings.consoleErrors.push(m.text()));
  page.on("pageerror", (e) => findings.consoleErrors.push(`${e}`));
  await page.goto(env.LINK);
  const expected = Number(env.PAGES);
  await page.waitForFunction((n) => document.querySelectorAll(".page canvas").length === n, expected, { timeout: 60000 });
  // Each page's fields are added as its canvas is: all are there once the last page is.
  await page.waitForFunction((n) => document.querySelectorAll(".page .field").length === n, Number(env.FIELDS), { timeout: 60000 });
  findings.pages = await page.evaluate(() =>
    [...document.querySelectorAll(".page")].map((frame) => {
      const canvas = frame.querySelector("canvas").getBoundingClientRect();
      return {
        canvas: { width: canvas.width, height: canvas.height },
        fields: [...frame.querySelectorAll(".field")].map((el) => {
          const box = el.getBoundingClientRect();
          return { x: box.left - canvas.left, y: box.top - canvas.top, width: box.width, height: box.height };
        }),
      };
    }),
  );
  findings.formControls = await page.evaluate(
    () => document.querySelectorAll(".page input, .page select, .page textarea, .annotationLayer").length,
  );
  await page.screenshot({ path: join(env.SHOTS, "placement-signing-page.png"), fullPage: true });
} catch (error) {
  findings.error = `${error.stack ?? error}`;
} finally {
  await browser.close();
  console.log(JSON.stringify(findings));
}
