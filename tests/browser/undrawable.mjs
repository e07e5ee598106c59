// A document whose PDF the browser cannot draw, on the console's placement page and on the
// signing page, in Debian's Chromium. Run by tests/tests/suite/signing_page.rs with BASE, EMAIL,
// PASSWORD (a console account), PLACE (the document's placement page) and SIGNERS (JSON:
// [{ name, link, locale }]). Reports, on each page, the note that stands in for the pages and what else
// is shown. Prints one JSON line of findings.
import { launch } from "./launch.mjs";

const env = process.env;
const browser = await launch();
const findings = { signers: [], console: [] };
const visible = (page, selector) => page.locator(selector).first().isVisible();
const note = async (page) => {
  const element = page.locator(".pages-failed");
  return { text: await element.textContent(), visible: await element.isVisible(), role: await element.getAttribute("role") };
};

try {
  const owner = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await owner.goto(`${env.BASE}/app`);
  await owner.fill("#email", env.EMAIL);
  await owner.fill("#password", env.PASSWORD);
  await Promise.all([owner.waitForNavigation(), owner.click("button[type=submit]")]);
  await owner.goto(env.PLACE);
  await owner.waitForSelector(".pages-failed");
  findings.placement = {
    note: await note(owner),
    pages: await owner.locator("#placement .page").count(),
    hint: await owner.getByText("Click a page to place a field").first().isVisible(),
    save: await visible(owner, "#save"),
    status: await owner.textContent("#placement-status"),
  };

  for (const signer of JSON.parse(env.SIGNERS)) {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: signer.locale });
    page.on("console", (m) => findings.console.push(`${signer.name} ${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => findings.console.push(`${signer.name}: ${e}`));
    // The page asks for the session once the pages are drawn or have failed to be.
    const session = page.waitForResponse((r) => r.url().endsWith("/session"));
    await page.goto(signer.link);
    await session;
    findings.signers.push({
      name: signer.name,
      lang: await page.getAttribute("html", "lang"),
      note: await note(page),
      pages: await page.locator("#pages .page").count(),
      fields: await page.locator("#pages .field").count(),
      consent: await visible(page, "#consent"),
      toolbar: await visible(page, "#toolbar"),
      decline: await visible(page, "#decline"),
      download: await visible(page, "#pages + p a"),
      text: await page.evaluate(() => document.body.innerText),
    });
    await page.close();
  }
} catch (error) {
  findings.error = `${error.stack ?? error}`;
} finally {
  await browser.close();
  console.log(JSON.stringify(findings));
}
