// Field placement on a DRAFT document's PDF or a template's (`data-kind`): the pages rendered
// with pdf.js, with the fields already saved; click (or tap) a page to drop a field for the
// chosen person and type, drag a field to move it, drag its corner to resize it, remove it with
// its × (or a double-click, which a finger cannot be relied on to give: hence the button).
// A document's people are its recipients; Save sends the saved fields kept (with their boxes)
// and the new ones; saved fields left out are removed, new ones go through the same rules as
// POST /documents/:id/fields. A template's people are its roles, edited on the page
// (template-roles.mjs), and Save sends every role with its fields, as PATCH /templates/:id.
// Coordinates are PDF points from the top-left of the displayed page (the API's pixels); only
// the display scales (`view.scale` CSS px per point), never what is stored.
import { renderPages } from "./pages.mjs";

const root = document.getElementById("placement");
const { saveUrl, csrf, doneUrl, kind } = root.dataset;
const saved = JSON.parse(root.dataset.fields || "[]");

// As large as on a desktop, 1.25 px per point, or smaller where the screen is narrower: a page
// is never wider than the room for it, so a phone shows it whole without scrolling sideways.
const MAX_SCALE = 1.25;
const fit = (pageWidth) => Math.min(MAX_SCALE, (root.clientWidth - 4) / pageWidth);
const DEFAULT = { width: 200, height: 50 };
const MINIMUM = 8;
const fields = [];
const personSelect = document.getElementById("recipient");
const typeSelect = document.getElementById("type");
const status = document.getElementById("placement-status");
// Every drawn field's box is named again (`field.show()`) when its person's name changes.
const placement = { fields, personSelect, status, drop: (field) => field.drop() };
const subject = kind === "template"
  ? (await import("./template-roles.mjs")).templateRoles(root, placement)
  : recipientsOf(root);

// One per page: its frame and canvas, its size in points, its scale, and how to lay out each
// of its fields again.
const views = [];

const pages = await renderPages(root, root.dataset, (natural) => fit(natural.width), (frame, canvas, number, viewport, scale) => {
  frame.dataset.page = number;
  const view = { frame, canvas, scale, size: { width: viewport.width / scale, height: viewport.height / scale }, layouts: [] };
  views.push(view);
  for (const field of saved.filter((f) => f.page === number)) add(view, { ...field });
  frame.addEventListener("click", (event) => {
    if (event.target !== canvas) return;
    const bounds = canvas.getBoundingClientRect();
    const x = (event.clientX - bounds.left) / view.scale;
    const y = (event.clientY - bounds.top) / view.scale;
    const { size } = view;
    if (!personSelect.value) {
      status.className = "error";
      status.textContent = "Add a role first: each field is for one.";
      return;
    }
    // A click on a line puts the field on it: the box's bottom edge at the pointer, so that the
    // stamped signature stands on the line instead of being struck through by it.
    add(view, {
      person: personSelect.value,
      type: typeSelect.value,
      page: number,
      x: Math.max(0, Math.min(x, size.width - DEFAULT.width)),
      y: Math.max(0, Math.min(y - DEFAULT.height, size.height - DEFAULT.height)),
      ...DEFAULT,
    });
  });
});
const counted = (n, one, many) => `${n} ${n === 1 ? one : many}`;
// With no page drawn, the note in the pages' place says why; there is nothing to click, and
// nothing to save: the saved fields, not shown, would all be removed.
if (pages) {
  status.textContent = `${counted(pages, "page", "pages")}, ${counted(saved.length, "saved field", "saved fields")}. Click or tap a page to place a field.`;
} else {
  for (const id of ["placement-hint", "save"]) document.getElementById(id).hidden = true;
}

// A phone turned sideways and back, a window resized, a scroll bar come: the pages fit the new
// width (the drawing is stretched, not drawn again) and every field follows its page.
new ResizeObserver(() => {
  for (const view of views) {
    const scale = fit(view.size.width);
    if (scale === view.scale) continue;
    view.scale = scale;
    for (const element of [view.frame, view.canvas]) {
      element.style.width = `${view.size.width * scale}px`;
      element.style.height = `${view.size.height * scale}px`;
    }
    for (const layout of view.layouts) layout();
  }
}).observe(root);

function add(view, field) {
  const { frame, size } = view;
  const box = document.createElement("div");
  box.className = "field";
  if (field.id) box.dataset.id = field.id;
  // The name in a <bdi> (balanced), so it cannot reorder the label around it.
  const name = document.createElement("bdi");
  const handle = document.createElement("div");
  handle.className = "resize";
  handle.title = "Drag to resize";
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "remove";
  remove.textContent = "×";
  remove.setAttribute("aria-label", "Remove this field");
  remove.title = "Remove this field";
  field.show = () => {
    const person = subject.person(field.person);
    name.textContent = person.shown;
    box.replaceChildren(`${field.type} · `, name, handle, remove);
    handle.style.background = person.color;
    box.style.borderColor = person.color;
    box.style.background = `${person.color}33`;
  };
  field.show();
  const place = () => {
    box.style.left = `${field.x * view.scale}px`;
    box.style.top = `${field.y * view.scale}px`;
    box.style.width = `${field.width * view.scale}px`;
    box.style.height = `${field.height * view.scale}px`;
  };
  place();
  view.layouts.push(place);
  handle.addEventListener("pointerdown", (down) => {
    down.preventDefault();
    down.stopPropagation();
    handle.setPointerCapture(down.pointerId);
    const start = { width: field.width, height: field.height, px: down.clientX, py: down.clientY };
    const resize = (event) => {
      field.width = Math.max(MINIMUM, Math.min(start.width + (event.clientX - start.px) / view.scale, size.width - field.x));
      field.height = Math.max(MINIMUM, Math.min(start.height + (event.clientY - start.py) / view.scale, size.height - field.y));
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
      field.x = Math.max(0, Math.min(start.x + (event.clientX - start.px) / view.scale, size.width - field.width));
      field.y = Math.max(0, Math.min(start.y + (event.clientY - start.py) / view.scale, size.height - field.height));
      place();
    };
    box.addEventListener("pointermove", move);
    box.addEventListener("pointerup", () => box.removeEventListener("pointermove", move), { once: true });
  });
  const drop = () => {
    fields.splice(fields.indexOf(field), 1);
    view.layouts.splice(view.layouts.indexOf(place), 1);
    box.remove();
    subject.dropped(field);
  };
  field.drop = drop;
  // Not a drag of the box: the button keeps the pointer, so that its click comes.
  remove.addEventListener("pointerdown", (down) => down.stopPropagation());
  remove.addEventListener("click", drop);
  box.addEventListener("dblclick", drop);
  frame.append(box);
  fields.push(field);
  subject.added(field);
}

// A document's people: its recipients, as the page was given them, by e-mail.
function recipientsOf(root) {
  const people = JSON.parse(root.dataset.people).map((p) => ({ ...p, shown: p.name }));
  return {
    person: (key) => people.find((p) => p.key === key),
    added() {},
    dropped() {},
    body: (box) => ({
      keep: fields.filter((f) => f.id).map((f) => ({ id: f.id, ...box(f) })),
      add: fields.filter((f) => !f.id).map((f) => ({ recipientEmail: f.person, type: f.type, page: f.page, ...box(f) })),
    }),
  };
}

document.getElementById("save").addEventListener("click", async () => {
  // Hundredths of a point: a saved field that was not touched keeps its box exactly.
  const round = (value) => Math.round(value * 100) / 100;
  const box = (f) => ({ x: round(f.x), y: round(f.y), width: round(f.width), height: round(f.height) });
  const body = subject.body(box);
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
