// The code form of a signing link that asks for an access code (signer authentication, issue
// #34), used with the keyboard alone: the page shows nothing of the document, a wrong code is
// announced (role=alert) and a right one, sent with Enter, opens the document's signing page.
// Run by tests/tests/suite/signer_auth.rs with RUNS (JSON: [{ name, link, locale, code, wrong,
// shot }]), TITLE (the document's title, which must not show before the code) and SHOTS. axe-core
// runs in the page at each step. Prints one JSON line of findings.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { launch } from "./launch.mjs";

const env = process.env;
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const browser = await launch();
const findings = { consoleErrors: [], runs: [] };

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

// Tabs until the code box has the focus: it is reachable with the keyboard. How many presses.
async function tabToCode(page) {
  for (let presses = 1; presses <= 40; presses++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(() => document.activeElement?.id === "auth-code")) return presses;
  }
  throw new Error("the code box cannot be reached with Tab");
}

try {
  for (const run of JSON.parse(env.RUNS)) {
    const context = await browser.newContext({ viewport: { width: 1024, height: 768 }, locale: run.locale });
    const page = await context.newPage();
    page.on("console", (m) => m.type() === "error" && findings.consoleErrors.push(`${run.name}: ${m.text()}`));
    page.on("pageerror", (e) => findings.consoleErrors.push(`${run.name}: ${e}`));
    const seen = { name: run.name, violations: [] };
    findings.runs.push(seen);

    // The code form alone.
    const response = await page.goto(run.link);
    seen.status = response.status();
    await page.waitForSelector("#auth-form");
    seen.lang = await page.getAttribute("html", "lang");
    seen.dir = await page.getAttribute("html", "dir");
    seen.titleBefore = await page.title();
    seen.headingBefore = await page.textContent("h1");
    seen.textShowsTitle = (await page.evaluate(() => document.documentElement.outerHTML)).includes(env.TITLE);
    seen.pagesBefore = await page.locator("#pages, #consent").count();
    seen.codeLabel = await page.locator("#auth-code").evaluate((input) => input.labels[0]?.textContent);
    seen.violations.push(...(await axe(page, "opened")));
    await page.screenshot({ path: join(env.SHOTS, `${run.shot}.png`) });

    // A wrong code, typed and sent with the button reached by Tab.
    seen.tabsToCode = await tabToCode(page);
    await page.keyboard.type(run.wrong);
    await page.keyboard.press("Tab");
    seen.focusOnSubmit = await page.evaluate(() => document.activeElement?.id);
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.getElementById("auth-error").textContent.trim() !== "");
    seen.error = await page.locator("#auth-error").evaluate((el) => ({
      text: el.textContent,
      role: el.getAttribute("role"),
      visible: el.getBoundingClientRect().height > 0,
    }));
    seen.alerts = await page.getByRole("alert").allTextContents();
    seen.afterWrong = await page.evaluate(() => ({
      focus: document.activeElement?.id,
      invalid: document.getElementById("auth-code").getAttribute("aria-invalid"),
      describedBy: document.getElementById("auth-code").getAttribute("aria-describedby"),
      value: document.getElementById("auth-code").value,
    }));
    seen.violations.push(...(await axe(page, "wrong code")));
    await page.screenshot({ path: join(env.SHOTS, `${run.shot}-wrong.png`) });

    // The right code, typed into the box (which still has the focus), sent with Enter: the page
    // loads again, now the document's.
    await page.keyboard.type(run.code);
    await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
    await page.waitForSelector("#consent-heading");
    seen.langAfter = await page.getAttribute("html", "lang");
    seen.dirAfter = await page.getAttribute("html", "dir");
    seen.titleAfter = await page.title();
    seen.headingAfter = await page.textContent("h1");
    seen.consentVisible = await page.locator("#consent").isVisible();
    seen.codeFormAfter = await page.locator("#auth-form").count();
    await page.waitForSelector("#pages .page canvas");
    seen.pagesShown = await page.locator("#pages .page canvas").count();
    seen.violations.push(...(await axe(page, "document")));
    await page.screenshot({ path: join(env.SHOTS, `${run.shot}-document.png`) });
    await context.close();
  }
} catch (error) {
  findings.error = `${error.stack ?? error}`;
} finally {
  await browser.close();
  console.log(JSON.stringify(findings));
}
