// Where the signing page draws each field over its page, in Debian's Chromium: run by
// tests/tests/suite/placement.rs with LINK (a signer's link), PAGES and FIELDS (how
// many the page shows) and SHOTS. Once every page is
// drawn, reports each page's canvas (CSS px) and the boxes of the fields over it, relative to
// the canvas's top-left corner, and whether pdf.js left any form control on the page. Prints
// one JSON line of findings; the Rust test compares them with where pdftotext finds the words.
import { join } from "node:path";
import { launch } from "./launch.mjs";

const env = process.env;
const browser = await launch();
const findings = { consoleErrors: [] };

try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on("console", (m) => m.type() === "error" && findings.consoleErrors.push(m.text()));
  page.on("pageerror", (e) => findings.consoleErrors.push(`${e}`));
  await page.goto(env.LINK);
  const expected = Number(env.PAGES);
  await page.waitForFunction((n) => document.querySelectorAll(".page canvas").length === n, expected);
  // Each page's fields are added as its canvas is: all are there once the last page is.
  await page.waitForFunction((n) => document.querySelectorAll(".page .field").length === n, Number(env.FIELDS));
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
