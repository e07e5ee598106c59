// Every console page on a phone (360 × 740 CSS px, touch, as playwright emulates one) and on a
// desktop, in Debian's Chromium. Run by tests/tests/suite/browser.rs, which starts the stack,
// prepares a SENT and a COMPLETED document and a webhook delivery, and passes in the
// environment: BASE, EMAIL, PASSWORD, PDF (a file to upload), TITLE (its title), SENT_URL,
// COMPLETED_URL, TEMPLATE_URL (a template with a role and a TEXT field), BULK_URL, SHOTS (where screenshots go). On the phone the owner signs in, uploads, adds a
// recipient and places a field by tapping the page, all by touch. Prints one JSON line of
// findings; the Rust test asserts on them and on the database.
import { join } from "node:path";
import { launch } from "./launch.mjs";

const env = process.env;
const browser = await launch();
const findings = { consoleErrors: [], pages: [] };
const SIZES = {
  phone: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  desktop: { viewport: { width: 1280, height: 800 } },
};
const go = (page, action) => Promise.all([page.waitForNavigation(), action]);
const statusSays = (page, words) =>
  page.waitForFunction((w) => document.getElementById("placement-status").textContent.includes(w), words);

// The controls a person needs on each page (the first element each selector finds).
const nav = ["nav a[href='/app/documents']", "nav a[href='/app/templates']", "nav a[href='/app/settings/api']", "nav button"];
const CONTROLS = {
  "sign-in": ["#email", "#password", "form button[type=submit]"],
  documents: [...nav, "#title", "#file", "#upload button[type=submit]", "#search", "#status", "#sortBy", "#filters select[name=sortOrder]", "#filters button", "#documents a"],
  draft: [...nav, "a[href*='original=1']", "#cancel", ".remove-recipient button", "#name", "#email", "#role", "#language", "#signing_order", "#add-recipient button", "#place-fields", "#message", "#description", "#expiry", "#document-language", "#reminders input[type=checkbox]", "#reminder_first_after_days", "#reminder_every_days", "#send button[type=submit]", "#template-title", "#make-template input[name^='role:']", "#make-template button"],
  placement: [...nav, "#recipient", "#type", "#save", "#toolbar a", "#placement .page canvas"],
  sent: [...nav, "a[href*='original=1']", "#remind button", "#cancel"],
  "cancel-confirmation": [...nav, "#reason", "#confirm-cancel button", "#confirm-cancel a"],
  completed: [...nav, "a[href*='original=1']", "#final-pdf"],
  "api-settings": [...nav, "#key form[action$='generate'] button", "#key form[action$='revoke'] button", "#webhook-url", "#webhook form[action$='/webhook'] button", "#webhook form[action$='reveal'] button", "#webhook form[action$='rotate'] button", "#deliveries form button"],
  verify: ["#file", "form button[type=submit]"],
  templates: [...nav, "#search", "#filters button", "#templates a"],
  "template-placement": [...nav, ".role-name", ".role-kind", ".role-order", ".remove-role", "#add-role", "#recipient", "#type", "#save", "#toolbar a", "#placement .page canvas", ".field-label", ".field-read-only", "#field-list button"],
  template: [...nav, "#edit-roles", "#use-title", "#use input[type=text][name^='role:']", "#use input[type=email]", "#use input[type=checkbox]", "#use-message", "#use-expiry", "#use button[type=submit]", "#archive button", "#bulk-file", "#bulk-message", "#bulk-expiry", "#bulk-upload button[type=submit]"],
  "bulk-send": [...nav, "main > p > a[href^='/app/templates/']"],
};

// What a page is like at this size: how wide it is against the screen (nothing may scroll the
// page sideways), and whether a finger can use each key control: shown, inside the screen's
// width, not covered by anything, and at least 24 × 24 CSS px (WCAG 2.2's minimum target).
// `screen` is the width asked for: a phone zooms out to show a page wider than itself, so
// there `innerWidth` grows to the page's width and only the screen's tells it was too wide.
async function inspect(page, size, name) {
  const widths = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  widths.screen = page.viewportSize().width;
  const controls = {};
  for (const selector of CONTROLS[name]) {
    const control = page.locator(selector).first();
    if ((await control.count()) === 0) {
      controls[selector] = "missing";
      continue;
    }
    await control.scrollIntoViewIfNeeded();
    controls[selector] = await control.evaluate((el) => {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === "hidden") return "hidden";
      const screen = document.documentElement.clientWidth;
      if (r.left < 0 || r.right > screen) return `outside the screen's ${screen} px: ${r.left}..${r.right}`;
      if (r.width < 24 || r.height < 24) return `too small to tap: ${r.width} × ${r.height}`;
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !(hit === el || el.contains(hit))) return `covered by ${hit?.outerHTML.slice(0, 100)}`;
      return "ok";
    });
  }
  await page.screenshot({ path: join(env.SHOTS, `${size}-${name}.png`), fullPage: true });
  findings.pages.push({ size, name, ...widths, controls });
}

async function signedIn(size) {
  const context = await browser.newContext(SIZES[size]);
  const page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && findings.consoleErrors.push(`${size} ${page.url()}: ${m.text()}`));
  page.on("pageerror", (e) => findings.consoleErrors.push(`${size} ${page.url()}: ${e}`));
  await page.goto(`${env.BASE}/app`);
  await inspect(page, size, "sign-in");
  await page.fill("#email", env.EMAIL);
  await page.fill("#password", env.PASSWORD);
  await go(page, page.locator("form button[type=submit]").click());
  return page;
}

try {
  // The phone: everything by touch.
  const phone = await signedIn("phone");
  await phone.setInputFiles("#file", env.PDF);
  await phone.fill("#title", env.TITLE);
  await go(phone, phone.locator("#upload button[type=submit]").tap());
  findings.draftUrl = phone.url();
  await phone.fill("#name", "Dana Phone");
  await phone.fill("#email", "dana.with.a.rather.long.address@subsidiary.example-holdings.test");
  await go(phone, phone.locator("#add-recipient button").tap());
  await inspect(phone, "phone", "draft");
  await go(phone, phone.locator("#place-fields").tap());
  findings.placementUrl = phone.url();
  await statusSays(phone, "a page to place a field");
  await inspect(phone, "phone", "placement");
  // A tap 30 px from the page's left edge and 120 px down: the field's bottom edge there.
  const canvas = phone.locator("#placement .page canvas").first();
  await canvas.scrollIntoViewIfNeeded();
  const page1 = await canvas.boundingBox();
  findings.phoneTap = { x: 30, y: 120, canvasWidth: page1.width, canvasHeight: page1.height };
  await phone.touchscreen.tap(page1.x + 30, page1.y + 120);
  // Where the page shows the new field, in CSS px from the page's top-left corner.
  const box = await phone.locator(".field").first().boundingBox();
  findings.phoneFieldShown = { left: box.x - page1.x, bottom: box.y + box.height - page1.y, width: box.width };
  // A second field, removed again by a tap on its ×.
  await phone.touchscreen.tap(page1.x + 30, page1.y + 300);
  await phone.locator(".field").nth(1).waitFor();
  const remove = phone.locator(".field").nth(1).locator(".remove");
  findings.removeButton = await remove.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { width: r.width, height: r.height };
  });
  await remove.tap();
  await phone.waitForFunction(() => document.querySelectorAll(".field").length === 1);
  await phone.screenshot({ path: join(env.SHOTS, "phone-placement-tapped.png") });
  await go(phone, phone.locator("#save").tap());
  findings.afterSave = phone.url();
  for (const [name, url] of [["sent", env.SENT_URL], ["cancel-confirmation", `${env.SENT_URL}/cancel`], ["completed", env.COMPLETED_URL], ["api-settings", `${env.BASE}/app/settings/api`], ["documents", `${env.BASE}/app/documents`], ["verify", `${env.BASE}/verify`], ["templates", `${env.BASE}/app/templates`], ["template", env.TEMPLATE_URL], ["template-placement", `${env.TEMPLATE_URL}/place`], ["bulk-send", env.BULK_URL]]) {
    await phone.goto(url);
    if (name === "template-placement") await statusSays(phone, "a page to place a field");
    await inspect(phone, "phone", name);
  }

  // The same pages on a desktop: as before, nothing scrolls sideways and the placement page is
  // drawn at 1.25 px per point.
  const desktop = await signedIn("desktop");
  for (const [name, url] of [["documents", `${env.BASE}/app/documents`], ["draft", findings.draftUrl], ["placement", findings.placementUrl], ["sent", env.SENT_URL], ["cancel-confirmation", `${env.SENT_URL}/cancel`], ["completed", env.COMPLETED_URL], ["api-settings", `${env.BASE}/app/settings/api`], ["verify", `${env.BASE}/verify`], ["templates", `${env.BASE}/app/templates`], ["template", env.TEMPLATE_URL], ["template-placement", `${env.TEMPLATE_URL}/place`], ["bulk-send", env.BULK_URL]]) {
    await desktop.goto(url);
    if (name === "template-placement") await statusSays(desktop, "a page to place a field");
    if (name === "placement") {
      await statusSays(desktop, "a page to place a field");
      findings.desktopCanvasWidth = (await desktop.locator("#placement .page canvas").first().boundingBox()).width;
    }
    await inspect(desktop, "desktop", name);
  }
  // The placement page, its window narrowed to a phone's width: the pages shrink to fit and the
  // saved field (placed on the phone) with them.
  await desktop.goto(findings.placementUrl);
  await statusSays(desktop, "1 saved field");
  await desktop.setViewportSize({ width: 360, height: 740 });
  await desktop.waitForFunction(() => document.querySelector("#placement .page canvas").getBoundingClientRect().width < 360);
  findings.narrowed = await desktop.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    canvasWidth: document.querySelector("#placement .page canvas").getBoundingClientRect().width,
    fieldWidth: document.querySelector("#placement .field").getBoundingClientRect().width,
  }));
} catch (error) {
  findings.error = String(error.stack ?? error);
} finally {
  await browser.close();
  console.log(JSON.stringify(findings));
}
