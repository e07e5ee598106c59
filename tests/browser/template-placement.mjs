// A template made from a PDF given its roles and fields on the console's placement page, in
// Debian's Chromium. Run by tests/tests/suite/browser.rs with BASE, EMAIL, PASSWORD (a console
// account), TEMPLATE_URL (the template's page) and SHOTS (where screenshots go). The owner
// follows the template page's next step, adds two roles, places a signature and a read-only
// labelled TEXT field for the first and a signature for the second (dragged down), saves a
// blank role name (refused, named on the page), names it and saves. Prints one JSON line of
// findings; the Rust test asserts on them and on the API's view of the template.
import { join } from "node:path";
import { launch } from "./launch.mjs";

const env = process.env;
const browser = await launch();
const findings = { consoleErrors: [] };
const go = (page, action) => Promise.all([page.waitForNavigation(), action]);

let owner;
let refusing = false;
try {
  owner = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  // The refused save's 400 is logged by the browser as a failed load: expected, kept apart.
  owner.on("console", (m) => {
    if (m.type() !== "error") return;
    const refused = refusing && m.text().includes("status of 400");
    (refused ? (findings.refusedLoads ??= []) : findings.consoleErrors).push(`${owner.url()}: ${m.text()}`);
  });
  owner.on("pageerror", (e) => findings.consoleErrors.push(`${owner.url()}: ${e}`));
  await owner.goto(`${env.BASE}/app`);
  await owner.fill("#email", env.EMAIL);
  await owner.fill("#password", env.PASSWORD);
  await go(owner, owner.click("button[type=submit]"));

  await owner.goto(env.TEMPLATE_URL);
  findings.nextStep = await owner.textContent("#next-step");
  await go(owner, owner.click("#edit-roles"));
  findings.placementUrl = owner.url();
  await owner.waitForFunction(() => document.getElementById("placement-status").textContent.includes("Click or tap a page"));

  // Two roles: the first a signer of group 1, the second left with a blank name for now.
  await owner.click("#add-role");
  await owner.locator(".role-name").nth(0).fill("Tenant");
  await owner.locator(".role-order").nth(0).fill("1");
  await owner.click("#add-role");
  await owner.locator(".role-name").nth(1).fill("");
  findings.roleChoices = await owner.locator("#recipient option").allTextContents();

  // The first page, its top at the window's: a click `y` px down it is on the screen.
  const place = async (roleIndex, type, x, y) => {
    await owner.selectOption("#recipient", { index: roleIndex });
    await owner.selectOption("#type", type);
    const page1 = owner.locator(".page canvas").first();
    await page1.evaluate((el) => el.scrollIntoView({ block: "start" }));
    const canvas = await page1.boundingBox();
    await owner.mouse.click(canvas.x + x, canvas.y + y);
  };
  await place(0, "SIGNATURE", 60, 120);
  await place(0, "TEXT", 60, 300);
  await place(1, "SIGNATURE", 420, 120);
  // The TEXT field's label and read-only mark, in its row of the list.
  const textRow = owner.locator(".field-row").nth(1);
  await textRow.locator(".field-label").fill("Rent");
  await textRow.locator(".field-read-only").check();
  findings.readOnlyBoxes = await owner.locator(".field-read-only").count();
  // Drag the second role's field down by 100 px (80 points at 1.25 px per point).
  await owner.locator(".page canvas").first().evaluate((el) => el.scrollIntoView({ block: "start" }));
  const second = await owner.locator(".field").nth(2).boundingBox();
  await owner.mouse.move(second.x + 10, second.y + 10);
  await owner.mouse.down();
  await owner.mouse.move(second.x + 10, second.y + 110, { steps: 5 });
  await owner.mouse.up();
  findings.draggedTo = await owner.locator(".field").nth(2).evaluate((el) => ({
    x: parseFloat(el.style.left) / 1.25,
    y: parseFloat(el.style.top) / 1.25,
  }));
  // A fourth field, removed again by its ×: its row goes with it.
  await place(0, "DATE", 60, 500);
  await owner.locator(".field").nth(3).locator(".remove").click();
  findings.rowsAfterRemove = await owner.locator(".field-row").count();

  // The blank name is refused, named on the page; nothing is saved and the page stays.
  refusing = true;
  await owner.click("#save");
  await owner.waitForFunction(() => document.getElementById("placement-status").className === "error");
  refusing = false;
  findings.refusal = await owner.textContent("#placement-status");
  findings.urlAfterRefusal = owner.url();
  await owner.locator(".role-name").nth(1).fill("Landlord");
  findings.renamedBox = await owner.locator(".field").nth(2).textContent();
  await owner.screenshot({ path: join(env.SHOTS, "template-placement.png"), fullPage: true });
  await go(owner, owner.click("#save"));
  findings.afterSave = owner.url();
  findings.templatePage = await owner.textContent("#roles");
} catch (error) {
  findings.error = String(error.stack ?? error);
  // What the page said when it went wrong.
  findings.statusThen = await owner?.textContent("#placement-status").catch(() => null);
  findings.fieldsThen = await owner?.locator(".field").count().catch(() => null);
} finally {
  await browser.close();
  console.log(JSON.stringify(findings));
}
