// Field placement on a DRAFT document: the pages rendered with pdf.js, with the fields already
// saved; click a page to drop a field for the chosen recipient and type, drag a field to move
// it, drag its corner to resize it, double-click it to remove it. Save sends the saved fields
// kept (with their boxes) and the new ones; saved fields left out are removed. New fields go
// through the same rules as POST /documents/:id/fields.
// Coordinates are PDF points from the top-left of the displayed page (the API's pixels).
import { renderPages } from "./pages.mjs";

const root = document.getElementById("placement");
const { saveUrl, csrf, doneUrl } = root.dataset;
const recipients = JSON.parse(root.dataset.recipients);
const saved = JSON.parse(root.dataset.fields || "[]");

const SCALE = 1.25;
const DEFAULT = { width: 200, height: 50 };
const MINIMUM = 8;
const fields = [];
const recipientSelect = document.getElementById("recipient");
const typeSelect = document.getElementById("type");
const status = document.getElementById("placement-status");

const pages = await renderPages(root, root.dataset, () => SCALE, (frame, canvas, number, viewport) => {
  frame.dataset.page = number;
  const pageSize = { width: viewport.width / SCALE, height: viewport.height / SCALE };
  for (const field of saved.filter((f) => f.page === number)) add(frame, { ...field }, pageSize);
  frame.addEventListener("click", (event) => {
    if (event.target !== canvas) return;
    const bounds = canvas.getBoundingClientRect();
    const x = (event.clientX - bounds.left) / SCALE;
    const y = (event.clientY - bounds.top) / SCALE;
    const size = { width: viewport.width / SCALE, height: viewport.height / SCALE };
    // A click on a line puts the field on it: the box's bottom edge at the pointer, so that the
    // stamped signature stands on the line instead of being struck through by it.
    add(frame, {
      recipientEmail: recipientSelect.value,
      type: typeSelect.value,
      page: number,
      x: Math.max(0, Math.min(x, size.width - DEFAULT.width)),
      y: Math.max(0, Math.min(y - DEFAULT.height, size.height - DEFAULT.height)),
      ...DEFAULT,
    }, size);
  });
});
const counted = (n, one, many) => `${n} ${n === 1 ? one : many}`;
// With no page drawn, the note in the pages' place says why; there is nothing to click, and
// nothing to save: the saved fields, not shown, would all be removed.
if (pages) {
  status.textContent = `${counted(pages, "page", "pages")}, ${counted(saved.length, "saved field", "saved fields")}. Click a page to place a field.`;
} else {
  for (const id of ["placement-hint", "save"]) document.getElementById(id).hidden = true;
}

function add(frame, field, size) {
  const recipient = recipients.find((r) => r.email === field.recipientEmail);
  const box = document.createElement("div");
  box.className = "field";
  if (field.id) box.dataset.id = field.id;
  // The name in a <bdi> (balanced by the server), so it cannot reorder the label around it.
  const name = document.createElement("bdi");
  name.textContent = recipient.name;
  box.replaceChildren(`${field.type} · `, name);
  const handle = document.createElement("div");
  handle.className = "resize";
  handle.title = "Drag to resize";
  Object.assign(handle.style, {
    position: "absolute", right: "-5px", bottom: "-5px", width: "10px", height: "10px",
    background: recipient.color, cursor: "nwse-resize", touchAction: "none",
  });
  box.append(handle);
  box.style.borderColor = recipient.color;
  box.style.background = `${recipient.color}33`;
  const place = () => {
    box.style.left = `${field.x * SCALE}px`;
    box.style.top = `${field.y * SCALE}px`;
    box.style.width = `${field.width * SCALE}px`;
    box.style.height = `${field.height * SCALE}px`;
  };
  place();
  handle.addEventListener("pointerdown", (down) => {
    down.preventDefault();
    down.stopPropagation();
    handle.setPointerCapture(down.pointerId);
    const start = { width: field.width, height: field.height, px: down.clientX, py: down.clientY };
    const resize = (event) => {
      field.width = Math.max(MINIMUM, Math.min(start.width + (event.clientX - start.px) / SCALE, size.width - field.x));
      field.height = Math.max(MINIMUM, Math.min(start.height + (event.clientY - start.py) / SCALE, size.height - field.y));
      place();
    };
    handle.addEventListener("pointermove", resize);
    handle.addEventListener("pointerup", () => handle.removeEventListener("pointermove", resize), { once: true });
  });
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
  // Hundredths of a point: a saved field that was not touched keeps its box exactly.
  const round = (value) => Math.round(value * 100) / 100;
  const box = (f) => ({ x: round(f.x), y: round(f.y), width: round(f.width), height: round(f.height) });
  const body = {
    keep: fields.filter((f) => f.id).map((f) => ({ id: f.id, ...box(f) })),
    add: fields.filter((f) => !f.id).map((f) => ({ recipientEmail: f.recipientEmail, type: f.type, page: f.page, ...box(f) })),
  };
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
