// The console and signing pages as a person uses them, in Debian's Chromium. Run by
// tests/tests/suite/browser.rs, which starts the stack and passes it in the environment:
// BASE, EMAIL, PASSWORD, PDF (a file to upload), MAILDIR (the SMTP server's mailbox),
// WEBHOOK_URL, SHOTS (where screenshots go). Prints one JSON line of findings; the Rust test
// asserts on them and on the database.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { launch } from "./launch.mjs";

const env = process.env;
const browser = await launch();
const findings = { consoleErrors: [] };
const watch = (page) => {
  page.on("console", (m) => m.type() === "error" && findings.consoleErrors.push(`${page.url()}: ${m.text()}`));
  page.on("pageerror", (e) => findings.consoleErrors.push(`${page.url()}: ${e}`));
  return page;
};
const shot = (page, name) => page.screenshot({ path: join(env.SHOTS, `${name}.png`), fullPage: true });
const go = (page, action) => Promise.all([page.waitForNavigation(), action]);

try {
  const owner = watch(await browser.newPage({ viewport: { width: 1100, height: 900 } }));
  await owner.goto(`${env.BASE}/app`);
  await shot(owner, "01-sign-in");
  await owner.fill("#email", env.EMAIL);
  await owner.fill("#password", env.PASSWORD);
  await go(owner, owner.click("button[type=submit]"));

  // Upload, recipients, placement by drag, send.
  await owner.setInputFiles("#file", env.PDF);
  await owner.fill("#title", "Browser journey");
  await go(owner, owner.click("#upload button[type=submit]"));
  findings.documentUrl = owner.url();
  for (const [name, email] of [["Ann Drawn", "ann@signet.test"], ["Bob Typed", "bob@signet.test"]]) {
    await owner.fill("#name", name);
    await owner.fill("#email", email);
    await go(owner, owner.click("#add-recipient button"));
  }
  await go(owner, owner.click("#place-fields"));
  await owner.waitForFunction(() => document.getElementById("placement-status").textContent.includes("Click or tap a page"));
  const canvas = await owner.locator(".page canvas").first().boundingBox();
  for (const [email, x] of [["ann@signet.test", 60], ["bob@signet.test", 420]]) {
    await owner.selectOption("#recipient", email);
    await owner.selectOption("#type", "SIGNATURE");
    await owner.mouse.click(canvas.x + x, canvas.y + 120);
  }
  // Where Ann's click put her field: its bottom edge at the click, 120 px = 96 points down.
  findings.annPlaced = await owner.locator(".field").first().evaluate((el) => ({
    bottom: (parseFloat(el.style.top) + parseFloat(el.style.height)) / 1.25,
  }));
  // Drag Bob's field down by 100 px (80 points at the page's 1.25 scale).
  const bob = await owner.locator(".field").nth(1).boundingBox();
  await owner.mouse.move(bob.x + 10, bob.y + 10);
  await owner.mouse.down();
  await owner.mouse.move(bob.x + 10, bob.y + 110, { steps: 5 });
  await owner.mouse.up();
  // Where the page shows Bob's field now, in points (the page is drawn at 1.25 px per point).
  findings.bobAfterDrag = await owner.locator(".field").nth(1).evaluate((el) => ({
    x: parseFloat(el.style.left) / 1.25,
    y: parseFloat(el.style.top) / 1.25,
  }));
  await shot(owner, "02-place-fields");
  await go(owner, owner.click("#save"));
  // Reopened, the placement page shows the saved fields; resize Ann's by dragging its corner
  // 50 px right and 25 px down (40 and 20 points), then save again.
  await go(owner, owner.click("#place-fields"));
  await owner.waitForFunction(() => document.getElementById("placement-status").textContent.includes("2 saved fields"));
  findings.savedFieldsShown = await owner.locator(".field").count();
  const corner = await owner.locator(".field .resize").first().boundingBox();
  await owner.mouse.move(corner.x + 5, corner.y + 5);
  await owner.mouse.down();
  await owner.mouse.move(corner.x + 55, corner.y + 30, { steps: 5 });
  await owner.mouse.up();
  findings.annAfterResize = await owner.locator(".field").first().evaluate((el) => ({
    width: parseFloat(el.style.width) / 1.25,
    height: parseFloat(el.style.height) / 1.25,
  }));
  await go(owner, owner.click("#save"));
  await owner.fill("#message", "Please sign the browser journey.");
  await go(owner, owner.click("#send button"));
  await shot(owner, "03-document-sent");

  // Each signing link from the mailbox: Ann draws, Bob types.
  const links = {};
  const deadline = Date.now() + 30000;
  while (Object.keys(links).length < 2 && Date.now() < deadline) {
    for (const name of readdirSync(join(env.MAILDIR, "new"))) {
      const text = readFileSync(join(env.MAILDIR, "new", name), "utf8");
      const to = /^To: .*<([^>]+)>/m.exec(text)?.[1];
      const link = /to sign:\r?\n(\S+)/.exec(text)?.[1];
      if (to && link) links[to] = link;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  findings.invitations = Object.keys(links).sort();
  for (const [email, drawn] of [["ann@signet.test", true], ["bob@signet.test", false]]) {
    const signer = watch(await browser.newPage({ viewport: { width: 390, height: 844 } }));
    await signer.goto(links[email]);
    await signer.waitForSelector("#pages .page canvas");
    await signer.waitForSelector("button.field");
    // The consent step, then the field, tapped where it sits on the page.
    await signer.check("#consent-agree");
    await signer.click("#consent-continue");
    await signer.waitForSelector("#toolbar:not([hidden])");
    await signer.click("button.field");
    await signer.waitForSelector("#field-dialog[open]");
    if (drawn) {
      await shot(signer, "04-signing-page-phone");
      const b = await signer.locator("#dialog-pad").boundingBox();
      await signer.mouse.move(b.x + 20, b.y + 40);
      await signer.mouse.down();
      for (let i = 1; i <= 20; i++) await signer.mouse.move(b.x + 20 + i * 12, b.y + 40 + Math.sin(i / 2) * 15);
      await signer.mouse.up();
    } else {
      await signer.fill("#dialog-input", "Bob Typed");
      // The preview under the input shows the name as the PDF will, in the PDF's fonts.
      findings.typedPreview = await signer.locator("#dialog-preview").evaluate((el) => ({
        text: el.textContent,
        font: getComputedStyle(el).fontFamily,
      }));
    }
    await signer.click("#dialog-apply");
    if (email === "bob@signet.test") {
      // On the page, the value is as large as the stamp will draw it: 70 % of the box's height.
      findings.typedOnPage = await signer.locator("button.field .typed").first().evaluate((el) => ({
        fontSize: parseFloat(getComputedStyle(el).fontSize),
        boxHeight: parseFloat(el.closest(".field").style.height),
      }));
    }
    await go(signer, signer.click("#sign"));
    findings[`${email} state`] = await signer.textContent("#state");
    await signer.close();
  }

  // The owner sees COMPLETED and downloads the signed PDF.
  let status = "";
  // Up to 120 s, like the Rust tests' waits: generous for a loaded machine, over as soon as
  // the state is there.
  const completedBy = Date.now() + 120000;
  while (Date.now() < completedBy && !status.includes("COMPLETED")) {
    await owner.goto(findings.documentUrl);
    status = await owner.textContent("#status");
    if (!status.includes("COMPLETED")) await new Promise((r) => setTimeout(r, 200));
  }
  findings.finalStatus = status;
  await shot(owner, "05-document-completed");
  const finalPdf = await owner.request.get(await owner.getAttribute("#final-pdf", "href"));
  findings.finalPdfStart = (await finalPdf.body()).subarray(0, 5).toString();

  // API settings: a key, used; regenerated, the old one refused; a webhook URL and its log.
  await owner.goto(`${env.BASE}/app/settings/api`);
  await go(owner, owner.click("#key form[action$='generate'] button"));
  const key = (await owner.textContent("#new-key")).trim();
  const call = async (k) => (await fetch(`${env.BASE}/external/api/v1/documents`, { headers: { "x-api-key": k } })).status;
  findings.keyWorks = await call(key);
  await go(owner, owner.click("#key form[action$='generate'] button"));
  findings.oldKeyAfterRegenerate = await call(key);
  await owner.fill("#webhook-url", env.WEBHOOK_URL);
  await go(owner, owner.click("#webhook form[action$='/webhook'] button"));
  // The second document's send produces a webhook event for the log.
  await owner.goto(`${env.BASE}/app/documents`);
  await owner.setInputFiles("#file", env.PDF);
  await go(owner, owner.click("#upload button[type=submit]"));
  await owner.fill("#name", "Cy Later");
  await owner.fill("#email", "cy@signet.test");
  await go(owner, owner.click("#add-recipient button"));
  await go(owner, owner.click("#place-fields"));
  await owner.waitForFunction(() => document.getElementById("placement-status").textContent.includes("Click or tap a page"));
  const page1 = await owner.locator(".page canvas").first().boundingBox();
  await owner.mouse.click(page1.x + 60, page1.y + 120);
  await go(owner, owner.click("#save"));
  await owner.fill("#message", "Second");
  await go(owner, owner.click("#send button"));
  const deliveredBy = Date.now() + 120000;
  while (Date.now() < deliveredBy) {
    await owner.goto(`${env.BASE}/app/settings/api`);
    if ((await owner.locator("#deliveries td", { hasText: "DELIVERED" }).count()) > 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  findings.deliveredInLog = await owner.locator("#deliveries td", { hasText: "DELIVERED" }).count();
  // What the log showed, should no delivery have arrived in time.
  findings.deliveryLog = (await owner.textContent("#deliveries"))?.replace(/\s+/g, " ").trim();
  await shot(owner, "06-api-settings");
  await owner.goto(`${env.BASE}/app/documents`);
  await shot(owner, "07-documents");
} catch (error) {
  findings.error = String(error.stack ?? error);
} finally {
  await browser.close();
  console.log(JSON.stringify(findings));
}
