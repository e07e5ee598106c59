// Embedded signing (issue #34) as an integrator builds it: its own page, on a loopback origin
// of its own (127.0.0.2, another site than the API's 127.0.0.1), loads /embed.js from the API
// and opens a recipient's signing session in an iframe; the signer signs inside it and the page
// gets `signet:signed` through the script's callbacks. The same page on an origin the account
// does not allow is refused framing; a second use of a session URL is refused. Run by
// tests/tests/suite/embedded_signing.rs with BASE (the API), KEY, DOC and RECIPIENT (an
// embedded signer with one SIGNATURE field). Prints one JSON line of findings.
import { createServer } from "node:http";
import { launch } from "./launch.mjs";

const env = process.env;
const findings = { consoleErrors: [] };

// The integrator's page: /embed.js from the API, a frame, and every callback written down.
const integratorPage = (base) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Integrator</title></head>
<body><h1>Your contract</h1><div id="signing" style="height: 900px"></div>
<script src="${base}/embed.js"></script>
<script>
  window.events = [];
  const record = (event) => window.events.push(event);
  const url = new URLSearchParams(location.search).get("session");
  Signet.open({ url, container: "#signing", onReady: record, onSigned: record, onDeclined: record, onError: record });
</script></body></html>`;

// A server on 127.0.0.2 and a free port: its origin.
async function integrator() {
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(path === "/done" ? "<!doctype html><title>Done</title><p id=done>Back in the product</p>" : integratorPage(env.BASE));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.2", resolve));
  return { server, origin: `http://127.0.0.2:${server.address().port}` };
}

async function api(method, path, body) {
  const response = await fetch(`${env.BASE}/external/api/v1${path}`, {
    method, headers: { "x-api-key": env.KEY, "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

const allowed = await integrator();
const other = await integrator();
const browser = await launch();
try {
  await api("PUT", "/account/embedding", { allowedOrigins: [allowed.origin] });
  const sessionPath = `/documents/${env.DOC}/recipients/${env.RECIPIENT}/signing-session`;
  const signing = await api("POST", sessionPath, { returnUrl: `${allowed.origin}/done?contract=42` });
  const refused = await api("POST", sessionPath, {});

  const context = await browser.newContext({ viewport: { width: 1000, height: 1000 } });
  const page = await context.newPage();
  const consoleLines = [];
  page.on("console", (m) => {
    consoleLines.push(m.text());
    // The browser's own refusals are what the refused case looks for; anything else is an error.
    if (m.type() === "error" && !/frame-ancestors|Failed to load resource|postMessage/.test(m.text())) findings.consoleErrors.push(m.text());
  });
  page.on("pageerror", (e) => findings.consoleErrors.push(`${e}`));
  const events = () => page.evaluate(() => window.events);
  const waitForEvent = (type) => page.waitForFunction((t) => window.events.some((e) => e.type === t), type);

  // 1. Signing inside the integrator's page.
  await page.goto(`${allowed.origin}/?session=${encodeURIComponent(signing.url)}`);
  await waitForEvent("signet:ready");
  const frame = page.frameLocator("#signing iframe");
  await frame.locator("#consent-agree").check();
  await frame.locator("#consent-continue").click();
  await frame.locator("#toolbar:not([hidden])").waitFor();
  await frame.locator("button.field").first().click();
  await frame.locator("#dialog-input").fill("Ann Embedded");
  await frame.locator("#dialog-apply").click();
  await frame.locator("#field-dialog[open]").waitFor({ state: "detached" });
  await frame.locator("#sign").click();
  await waitForEvent("signet:signed");
  findings.events = await events();
  // returnUrl: the frame goes back into the product, saying what happened.
  await frame.locator("#done").waitFor();
  findings.frameUrl = page.frames().find((f) => f !== page.mainFrame())?.url();

  // 2. A second use of the same URL: refused, in the frame, and told to the page.
  await page.goto(`${allowed.origin}/?session=${encodeURIComponent(signing.url)}`);
  await waitForEvent("signet:error");
  findings.reuseEvents = await events();
  findings.reuseText = await frame.locator("h1").textContent();

  // 3. The same page on an origin the account does not allow: the browser refuses the frame.
  const refusal = page.waitForEvent("console", { predicate: (m) => /frame-ancestors/.test(m.text()) });
  await page.goto(`${other.origin}/?session=${encodeURIComponent(refused.url)}`);
  findings.refusedFraming = (await refusal).text();
  findings.otherOriginEvents = await events();
  await context.close();
} catch (error) {
  findings.error = `${error.stack ?? error}`;
} finally {
  await browser.close();
  allowed.server.close();
  other.server.close();
  console.log(JSON.stringify(findings));
}
