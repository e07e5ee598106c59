// Field placement on a DRAFT document: the pages rendered with pdf.js; click a page to drop a
// field for the chosen recipient and type, drag it to move it, double-click it to remove it;
// Save sends them all through the same rules as POST /documents/:id/fields.
// Coordinates are PDF points from the top-left of the displayed page (the API's pixels).
import { renderPages } from "./pages.mjs";

const root = document.getElementById("placement");
const { saveUrl, csrf, doneUrl } = root.dataset;
const recipients = JSON.parse(root.dataset.recipients);

const SCALE = 1.25;
const DEFAULT = { width: 200, height: 50 };
const fields = [];
const recipientSelect = document.getElementById("recipient");
const typeSelect = document.getElementById("type");
const status = document.getElementById("placement-status");

const pages = await renderPages(root, root.dataset, () => SCALE, (frame, canvas, number, viewport) => {
  frame.dataset.page = number;
  frame.addEventListener("click", (event) => {
    if (event.target !== canvas) return;
    const bounds = canvas.getBoundingClientRect();
    const x = (event.clientX - bounds.left) / SCALE;
    const y = (event.clientY - bounds.top) / SCALE;
    const size = { width: viewport.width / SCALE, height: viewport.height / SCALE };
    add(frame, {
      recipientEmail: recipientSelect.value,
      type: typeSelect.value,
      page: number,
      x: Math.max(0, Math.min(x, size.width - DEFAULT.width)),
      y: Math.max(0, Math.min(y, size.height - DEFAULT.height)),
      ...DEFAULT,
    }, size);
  });
});
status.textContent = `${pages} page(s). Click a page to place a field.`;

function add(frame, field, size) {
  const recipient = recipients.find((r) => r.email === field.recipientEmail);
  const box = document.createElement("div");
  box.className = "field";
  box.textContent = `${field.type} · ${recipient.name}`;
  box.style.borderColor = recipient.color;
  box.style.background = `${recipient.color}33`;
  const place = () => {
    box.style.left = `${field.x * SCALE}px`;
    box.style.top = `${field.y * SCALE}px`;
    box.style.width = `${field.width * SCALE}px`;
    box.style.height = `${field.height * SCALE}px`;
  };
  place();
  box.addEventListener("pointerdown", (down) => {
    down.preventDefault();
    box.setPointerCapture(down.pointerId);
    const start = { x: field.x, y: field.y, px: down.clientX, py: down.clientY };
    const move = (event) => {
      field.x = Math.max(0, Math.min(start.x + (event.clientX - start.px) / SCALE, size.width - field.width));
      field.y = Math.max(0, Math.min(start.y + (event.clientY - start.py) / SCALE, size.height - field.height));
      place();
    };
    box.addEventListener("pointermove", move);
    box.addEventListener("pointerup", () => box.removeEventListener("pointermove", move), { once: true });
  });
  box.addEventListener("dblclick", () => {
    fields.splice(fields.indexOf(field), 1);
    box.remove();
  });
  frame.append(box);
  fields.push(field);
}

document.getElementById("save").addEventListener("click", async () => {
  const body = fields.map((f) => ({ ...f, x: Math.round(f.x), y: Math.round(f.y) }));
  const response = await fetch(saveUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({ message: "Unexpected response" }));
  if (response.ok) {
    location.href = doneUrl;
  } else {
    const details = (json.errors || []).map((e) => `${e.field}: ${e.reason}`).join("\n");
    status.className = "error";
    status.textContent = json.message + (details ? `\n${details}` : "");
  }
});
