// The signing page with one field of every kind issue #33 adds (docs/fields.md), signed with the
// keyboard wherever a keyboard can: the consent box with Space, each field reached by the
// guide's focus or Tab and opened with Enter, a checkbox ticked with Space, a radio chosen with
// the arrow keys, a select changed with the arrow keys, Apply and Sign pressed with Enter. The
// file for the ATTACHMENT field is given to its file input (a file chooser is the system's).
// axe-core runs in the page at each step. Run by tests/tests/suite/signing_page_kinds.rs with LINK,
// VALUES (JSON: type → what to enter), FILE (a file to attach) and SHOTS. Prints one JSON line
// of findings.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { launch } from "./launch.mjs";

const env = process.env;
const values = JSON.parse(env.VALUES);
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const browser = await launch();
const findings = { consoleErrors: [], violations: [], steps: [] };

// WCAG 2.1 A and AA rules; only what axe rates serious or critical is reported.
async function axe(page, step) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } }));
  findings.violations.push(...result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ step, id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) })));
}

// Where the focus is: the field (its kind) or another control (its id).
const focused = (page) => page.evaluate(() => {
  const el = document.activeElement;
  return { id: el?.id, type: el?.closest(".field")?.dataset.type ?? null, label: el?.getAttribute("aria-label") };
});

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-GB" });
  const page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && findings.consoleErrors.push(m.text()));
  page.on("pageerror", (e) => findings.consoleErrors.push(`${e}`));
  await page.goto(env.LINK);
  await page.waitForSelector("#pages .page canvas");
  await page.waitForSelector("#pages .field");
  await axe(page, "opened");
  findings.names = await page.locator("#pages .field").evaluateAll((boxes) =>
    boxes.map((b) => ({ type: b.dataset.type, name: (b.querySelector("input") ?? b).getAttribute("aria-label") ?? b.querySelector(".sr-only")?.textContent })));

  // Consent with the keyboard.
  await page.focus("#consent-agree");
  await page.keyboard.press("Space");
  await page.focus("#consent-continue");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#toolbar:not([hidden])");
  findings.progressBefore = await page.textContent("#progress");

  // The guide has focused the first empty required field; each is filled from where the focus
  // is, and the guide moves on.
  for (let step = 0; step < 20; step++) {
    const at = await focused(page);
    findings.steps.push(at);
    // Every required field filled: the guide has moved to Sign.
    if (!at.type) break;
    const value = values[at.type];
    if (at.type === "CHECKBOX") {
      await page.keyboard.press("Space");
      // A ticked checkbox is filled: the guide is not moved by it, Next field is.
      await page.focus("#next-field");
      await page.keyboard.press("Enter");
      continue;
    }
    await page.keyboard.press("Enter");
    await page.waitForSelector("#field-dialog[open]");
    if (at.type === "RADIO") {
      await axe(page, "radio dialog open");
      // Focus is on the first radio: Space chooses it, the arrow moves the choice on.
      await page.keyboard.press("Space");
      await page.keyboard.press("ArrowDown");
    } else if (at.type === "DROPDOWN") {
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
    } else if (at.type === "ATTACHMENT") {
      await axe(page, "file dialog open");
      await page.setInputFiles("#dialog-file", env.FILE);
    } else {
      await page.keyboard.press("Control+A");
      await page.keyboard.type(value);
    }
    await page.focus("#dialog-apply");
    await page.keyboard.press("Enter");
    // An attachment is uploaded (a PDF read in the sandbox) before the dialog closes.
    await page.waitForSelector("#field-dialog[open]", { state: "detached" }).catch(async () => {
      const said = [await page.textContent("#dialog-error"), await page.textContent("#dialog-file-status"),
        await page.evaluate(() => { const i = document.getElementById("dialog-input"); return `${i.type} ${JSON.stringify(i.value)} valid=${i.checkValidity()} focus=${document.activeElement?.id} title=${document.getElementById("dialog-title").textContent} progress=${document.getElementById("progress").textContent}`; }),
        ...findings.consoleErrors];
      throw new Error(`${at.type}: the dialog stayed open: ${said.join(" / ")}`);
    });
  }
  // NAME came filled with the recipient's name, so the guide passed it by: corrected by hand.
  if (values.NAME) {
    await page.focus("#pages .field[data-type=NAME]");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#field-dialog[open]");
    findings.namePrefilled = await page.inputValue("#dialog-input");
    await page.keyboard.press("Control+A");
    await page.keyboard.type(values.NAME);
    await page.focus("#dialog-apply");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#field-dialog[open]", { state: "detached" }).catch(async () => {
      throw new Error(`NAME: the dialog stayed open: ${await page.textContent("#dialog-error")}`);
    });
  }
  findings.progressAfter = await page.textContent("#progress");
  findings.shown = await page.locator("#pages button.field").evaluateAll((boxes) =>
    Object.fromEntries(boxes.map((b) => [b.dataset.type, b.textContent])));
  findings.checkboxTicked = await page.locator(".field.checkbox input").isChecked();
  await axe(page, "filled");
  await page.screenshot({ path: join(env.SHOTS, "field-kinds-filled.png") });

  await page.focus("#sign");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  await page.waitForSelector("#state");
  findings.state = await page.textContent("#state");
  findings.signError = await page.locator("#sign-error").textContent().catch(() => null);
  await axe(page, "signed");
  await context.close();
} catch (error) {
  findings.error = `${error.stack ?? error}`;
} finally {
  await browser.close();
  console.log(JSON.stringify(findings));
}
