// The signing page's CJK text on a device with no CJK font, in Debian's Chromium. Run by
// tests/tests/suite/signing_page.rs with LINK (a signing link whose title and signer's name are
// CJK) and FONTCONFIG_FILE (a fontconfig that finds no CJK font; Chromium inherits it). Reports
// every console message (a font the browser's sanitiser refuses shows there), each web font face
// and whether it loaded, which fonts Chromium drew the language picker's "简体中文" (and
// "日本語", "한국어"), the title
// and the signer's name with (DevTools' CSS.getPlatformFontsForNode), and the width of
// "简体中文" drawn in the page's fonts and in the device's alone. Prints one JSON line of
// findings.
import { launch } from "./launch.mjs";

const env = process.env;
const browser = await launch();
const findings = { console: [] };

try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  page.on("console", (m) => findings.console.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => findings.console.push(`pageerror: ${e}`));
  await page.goto(env.LINK);
  await page.waitForSelector("#pages .page canvas");
  // The language picker is folded under the current language until it is opened.
  await page.click("details.languages > summary");
  // Every font the page asked for has come or failed; reading a size lays the page out again
  // with them, so that what DevTools reports below is what the page now shows.
  await page.evaluate(async () => {
    await document.fonts.ready;
    return document.body.offsetHeight;
  });
  if (env.SHOTS) await page.screenshot({ path: `${env.SHOTS}/09-signing-page-cjk-without-system-font.png` });

  // Each face of the page's fonts: what it is declared for and whether it loaded.
  findings.faces = await page.evaluate(() => [...document.fonts]
    .map((f) => ({ family: f.family.replaceAll('"', ""), unicodeRange: f.unicodeRange, status: f.status })));

  const cdp = await page.context().newCDPSession(page);
  await cdp.send("DOM.enable");
  await cdp.send("CSS.enable");
  const { root } = await cdp.send("DOM.getDocument", { depth: -1 });
  const fontsOf = async (selector) => {
    const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector });
    const { fonts } = await cdp.send("CSS.getPlatformFontsForNode", { nodeId });
    return fonts;
  };
  findings.pickerText = await page.textContent('nav.languages a[lang="zh-Hans"]');
  findings.pickerFonts = await fontsOf('nav.languages a[lang="zh-Hans"]');
  findings.otherPickers = {};
  for (const tag of ["ja", "ko"]) {
    const selector = `nav.languages a[lang="${tag}"]`;
    findings.otherPickers[tag] = { text: await page.textContent(selector), fonts: await fontsOf(selector) };
  }
  findings.titleText = await page.textContent("h1");
  findings.titleFonts = await fontsOf("h1");
  findings.nameText = await page.textContent("main > p bdi");
  findings.nameFonts = await fontsOf("main > p bdi");

  // "简体中文" at 20 px in the page's fonts and in the device's alone.
  findings.widths = await page.evaluate(() => {
    const span = (id, family) => {
      const element = document.createElement("span");
      element.id = id;
      element.style.font = `20px ${family}`;
      element.style.whiteSpace = "nowrap";
      element.textContent = "简体中文";
      document.body.append(element);
      return element.getBoundingClientRect().width;
    };
    return { page: span("page-fonts", getComputedStyle(document.body).fontFamily), device: span("device-fonts", "system-ui, sans-serif") };
  });
  findings.deviceFonts = await fontsOf("#device-fonts");
} catch (error) {
  findings.error = `${error.stack ?? error}`;
} finally {
  await browser.close();
  console.log(JSON.stringify(findings));
}
