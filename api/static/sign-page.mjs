// The signing page: the document's pages rendered with pdf.js, the recipient's fields shown in
// their colour where they sit; signatures and initials typed or drawn; sign and decline post
// JSON to the signing link's endpoints.
import { renderPages } from "./pages.mjs";

const root = document.getElementById("pages");
const { color, base } = root.dataset;
const fields = JSON.parse(root.dataset.fields);

// Each page fits the screen's width, phones included; the recipient's fields sit on top.
const fit = (natural) => Math.min(1.5, (root.clientWidth - 4) / natural.width);
await renderPages(root, root.dataset, fit, (frame, canvas, number, viewport, scale) => {
  for (const field of fields.filter((f) => f.page === number)) {
    const box = document.createElement("button");
    box.type = "button";
    box.className = "field";
    box.textContent = field.type;
    Object.assign(box.style, {
      left: `${field.x * scale}px`, top: `${field.y * scale}px`,
      width: `${field.width * scale}px`, height: `${field.height * scale}px`,
      borderColor: color, background: `${color}33`,
    });
    box.addEventListener("click", () => document.getElementById(field.id)?.focus());
    frame.append(box);
  }
});

// Typed signatures and initials: the preview shows the value as the final PDF will, trimmed,
// with runs of white space as one space, in the PDF's fonts.
for (const preview of document.querySelectorAll(".typed-preview")) {
  const input = document.getElementById(preview.dataset.for);
  const show = () => { preview.textContent = input.value.trim().replace(/\s+/g, " "); };
  input.addEventListener("input", show);
  show();
}

// Signature pads: drawing replaces the typed value.
const pads = new Map();
for (const pad of document.querySelectorAll("canvas.pad")) {
  const context = pad.getContext("2d");
  context.lineWidth = 2.5;
  context.lineCap = "round";
  context.strokeStyle = "#0d2673";
  let drawing = false;
  const point = (event) => {
    const bounds = pad.getBoundingClientRect();
    return [(event.clientX - bounds.left) * (pad.width / bounds.width), (event.clientY - bounds.top) * (pad.height / bounds.height)];
  };
  pad.addEventListener("pointerdown", (event) => {
    drawing = true;
    pad.setPointerCapture(event.pointerId);
    context.beginPath();
    context.moveTo(...point(event));
  });
  pad.addEventListener("pointermove", (event) => {
    if (!drawing) return;
    context.lineTo(...point(event));
    context.stroke();
    pads.set(pad.dataset.for, true);
  });
  pad.addEventListener("pointerup", () => { drawing = false; });
  document.querySelector(`button.clear[data-for="${pad.dataset.for}"]`)?.addEventListener("click", () => {
    context.clearRect(0, 0, pad.width, pad.height);
    pads.delete(pad.dataset.for);
  });
}

async function post(path, body, errorId) {
  const response = await fetch(base + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = await response.json().catch(() => ({ message: "Unexpected response" }));
  if (response.ok) { location.reload(); return; }
  const details = (json.errors || []).map((e) => e.reason).join("\n");
  document.getElementById(errorId).textContent = json.message + (details ? `\n${details}` : "");
}

document.getElementById("sign")?.addEventListener("submit", (event) => {
  event.preventDefault();
  const values = [...event.target.querySelectorAll("input[data-field]")].map((input) => {
    const pad = document.querySelector(`canvas.pad[data-for="${input.name}"]`);
    const value = pad && pads.has(input.name) ? pad.toDataURL("image/png") : input.value;
    return { id: input.name, value };
  });
  post("/submit", { fields: values }, "sign-error");
});

document.getElementById("decline")?.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!confirm("Decline to sign this document?")) return;
  post("/decline", { reason: document.getElementById("reason").value }, "decline-error");
});
