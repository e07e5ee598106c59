// The signing page on a phone (390 × 844 CSS px at 2 device pixels per px, touch), as signers
// use it: consent, tap each field on the page, fill it in place, sign. Run by
// tests/tests/suite/signing_page.rs with SIGNERS (JSON: [{ link, locale, name, shot, values }]
// where values maps a field type to what to enter, "draw" meaning a drawn signature) and SHOTS.
// axe-core runs in the page at each step. Prints one JSON line of findings.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { launch } from "./launch.mjs";

const env = process.env;
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const browser = await launch();
const findings = { consoleErrors: [], signers: [] };

// WCAG 2.1 A and AA rules; only what axe rates serious or critical is reported.
async function axe(page, step) {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy (script-src
  // 'self') stays in force for everything else.
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } }));
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ step, id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
}

try {
  for (const signer of JSON.parse(env.SIGNERS)) {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: signer.locale,
    });
    const page = await context.newPage();
    page.on("console", (m) => m.type() === "error" && findings.consoleErrors.push(`${signer.name}: ${m.text()}`));
    page.on("pageerror", (e) => findings.consoleErrors.push(`${signer.name}: ${e}`));
    page.on("dialog", (d) => d.accept());
    const seen = { name: signer.name, violations: [] };
    findings.signers.push(seen);

    await page.goto(signer.link);
    await page.waitForSelector("#pages .page canvas");
    await page.waitForSelector("#pages .field");
    seen.lang = await page.getAttribute("html", "lang");
    seen.dir = await page.getAttribute("html", "dir");
    seen.canvas = await page.locator("#pages canvas").first().evaluate((c) => ({ pixels: c.width, css: c.getBoundingClientRect().width }));
    seen.fieldsDisabledBeforeConsent = await page.locator("button.field").evaluateAll((bs) => bs.every((b) => b.disabled));
    // Which of the page's CJK faces the browser fetched: with the language picker folded, and
    // opened (where "简体中文" is drawn); and how much of the phone's screen the folded picker takes.
    const cjkFaces = () => page.evaluate(async () => {
      await document.fonts.ready;
      return [...document.fonts].filter((f) => f.family.replaceAll('"', "") === "Signet CJK").map((f) => ({ unicodeRange: f.unicodeRange, status: f.status }));
    });
    seen.cjkFacesFolded = await cjkFaces();
    seen.pickerHeight = await page.locator("details.languages").evaluate((d) => d.getBoundingClientRect().height);
    seen.violations.push(...(await axe(page, "opened")));
    await page.tap("details.languages > summary");
    seen.cjkFaces = await cjkFaces();
    seen.pickerLinks = await page.locator("details.languages nav a:visible").count();
    seen.violations.push(...(await axe(page, "language picker opened")));
    await page.tap("details.languages > summary");

    // Consent: refused without the box ticked, then given.
    await page.tap("#consent-continue");
    seen.consentMissing = await page.textContent("#consent-error");
    await page.tap("#consent-agree");
    await page.tap("#consent-continue");
    await page.waitForSelector("#toolbar:not([hidden])").catch(async (e) => {
      throw new Error(`no toolbar after consent: ${await page.textContent("#consent-error")} / ${findings.consoleErrors}: ${e}`);
    });
    seen.focusAfterConsent = await page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
    seen.progressBefore = await page.textContent("#progress");

    // Sign with nothing filled: every empty field named.
    await page.tap("#sign");
    seen.emptyErrors = await page.locator("#sign-error li").allTextContents();
    seen.violations.push(...(await axe(page, "errors shown")));

    // Each field, tapped where it sits on the page, in reading order.
    const boxes = await page.locator("button.field").all();
    seen.fieldNames = [];
    for (const [index, box] of boxes.entries()) {
      const name = await box.getAttribute("aria-label");
      seen.fieldNames.push(name);
      await box.scrollIntoViewIfNeeded();
      await box.tap();
      await page.waitForSelector("#field-dialog[open]");
      if (index === 0) seen.violations.push(...(await axe(page, "field dialog open")));
      const kind = Object.keys(signer.values).find((k) => name.startsWith(signer.kinds[k]));
      const value = signer.values[kind];
      if (value === "draw") {
        const pad = page.locator("#dialog-pad");
        const b = await pad.boundingBox();
        await page.mouse.move(b.x + 20, b.y + 30);
        await page.mouse.down();
        for (let i = 1; i <= 20; i++) await page.mouse.move(b.x + 20 + i * 14, b.y + 30 + Math.sin(i / 2) * 20);
        await page.mouse.up();
      } else {
        await page.fill("#dialog-input", value);
        if (kind === "SIGNATURE") {
          seen.typedPreview = await page.locator("#dialog-preview").evaluate((el) => ({ text: el.textContent, font: getComputedStyle(el).fontFamily }));
        }
      }
      await page.tap("#dialog-apply");
      await page.waitForSelector("#field-dialog[open]", { state: "detached" });
      // The guide moves on to the next empty field, or to Sign.
      seen[`focusAfter${index}`] = await page.evaluate(() => document.activeElement?.id || document.activeElement?.getAttribute("aria-label"));
    }
    seen.progressAfter = await page.textContent("#progress");
    seen.dateShown = await page.locator(".field.date [aria-hidden]").allTextContents();
    // Read-only fields (prefilled from a template): drawn with their value, not as buttons.
    seen.readOnlyShown = await page.locator(".field.fixed [aria-hidden]").allTextContents();
    seen.readOnlyNames = await page.locator(".field.fixed .sr-only").allTextContents();
    seen.violations.push(...(await axe(page, "filled")));
    await page.screenshot({ path: join(env.SHOTS, `${signer.shot}.png`), fullPage: false });

    await Promise.all([page.waitForNavigation(), page.tap("#sign")]);
    await page.waitForSelector("#state");
    seen.state = await page.textContent("#state");
    seen.fieldsAfterSigning = await page.locator("#pages .field").count();
    seen.violations.push(...(await axe(page, "signed")));
    await page.screenshot({ path: join(env.SHOTS, `${signer.shot}-signed.png`), fullPage: false });
    await context.close();
  }
} catch (error) {
  findings.error = `${error.stack ?? error}`;
} finally {
  await browser.close();
  console.log(JSON.stringify(findings));
}
