// The signing page: the document's pages rendered with pdf.js and, while the signer can act,
// their fields drawn where they sit, in their colour. A consent step comes first; then each
// field is filled in place: a CHECKBOX is a real checkbox on the page; the others open a dialog
// (a typed or drawn signature or initials; a text, number, e-mail, name or company input with
// the field's rules; a radio group for RADIO; a select for DROPDOWN; a file input for
// ATTACHMENT, whose file is uploaded at once and named in the box). DATE fields show the date
// the server will set, read-only fields the value the sender set, and a value the sender
// prefilled for the signer to keep or change is shown entered. Optional fields are named so and
// may stay empty. "Next field" walks the empty required fields in reading order; Sign posts
// every value at once. All words come from the server, in the page's language.
import { renderPages } from "./pages.mjs";
// Embedded signing: what happens is told to the integrator's page (nothing on a signing link).
import { finish, tell } from "./embedded.mjs";

const data = JSON.parse(document.getElementById("signing-data").textContent);
const { words } = data;
const root = document.getElementById("pages");
const byId = (id) => document.getElementById(id);

// What the signer has entered, by field id: { kind: "typed" | "drawn" | "text" | "file", value,
// shown }, `shown` being what the box shows when it is not the value (an attachment's file name).
const values = new Map();
const boxes = new Map();
// DATE fields get the signing date and read-only ones keep the sender's value: neither is sent.
const toFill = data.fields.filter((f) => f.type !== "DATE" && !f.readOnly);
// The fields Sign waits for, and the guide and the progress count.
const required = toFill.filter((f) => f.required);
for (const field of toFill) if (field.value) values.set(field.id, { kind: "text", value: field.value });
// Filled as Sign needs it: a CHECKBOX counts once ticked.
const isFilled = (field) => values.has(field.id) && (field.type !== "CHECKBOX" || values.get(field.id).value === "true");
const TYPED = ["TEXT", "NUMBER", "EMAIL", "NAME", "COMPANY"];
// False once the pages have failed to draw: then there is no field to fill in.
let pagesShown = true;

function show(field) {
  const box = boxes.get(field.id);
  if (!box || field.type === "DATE" || field.readOnly) return;
  const entered = values.get(field.id);
  if (field.type === "CHECKBOX") {
    const ticked = isFilled(field);
    box.firstChild.checked = ticked;
    box.classList.toggle("filled", ticked);
    box.classList.toggle("todo", !ticked && field.required);
    return;
  }
  box.replaceChildren();
  if (!entered) {
    box.append(field.kind);
  } else if (entered.kind === "drawn") {
    const image = document.createElement("img");
    image.src = entered.value;
    image.alt = "";
    box.append(image);
  } else {
    const text = document.createElement("span");
    text.className = entered.kind === "typed" ? "typed" : "";
    text.dir = "auto";
    text.textContent = entered.shown ?? entered.value;
    box.append(text);
    stampSize(box, text);
  }
  box.classList.toggle("filled", Boolean(entered));
  box.classList.toggle("todo", !entered);
  // The name carries what the box shows, so that speech input can say it (WCAG 2.5.3).
  const empty = field.required ? words["sign-field-to-fill"] : words["sign-field-optional-empty"];
  const state = entered ? words["sign-field-filled"] : empty;
  const shown = entered && entered.kind !== "drawn" ? `: ${entered.shown ?? entered.value}` : "";
  box.setAttribute("aria-label", `${field.name}, ${state}${shown}`);
}

// Sizes a value's text as the final PDF will stamp it: 70 % of the box's height, smaller if
// that would not fit its width (pdf/src/stamp.rs), so what the signer sees is what the PDF shows.
function stampSize(box, text) {
  const height = parseFloat(box.style.height);
  const room = box.clientWidth - 4;
  text.style.whiteSpace = "nowrap";
  text.style.fontSize = `${height * 0.7}px`;
  const wide = text.getBoundingClientRect().width;
  if (wide > room && room > 0) text.style.fontSize = `${(height * 0.7 * room) / wide}px`;
}

function updateProgress() {
  const progress = byId("progress");
  if (!progress) return;
  const done = required.filter(isFilled).length;
  progress.textContent = data.progress[done];
}

// Consent: before the first field.
byId("consent-continue")?.addEventListener("click", async () => {
  if (!byId("consent-agree").checked) {
    byId("consent-error").textContent = words["sign-consent-missing"];
    byId("consent-agree").focus();
    return;
  }
  const answer = await post("/consent", { language: data.language }, "consent-error");
  if (!answer) return;
  data.consented = true;
  byId("consent").hidden = true;
  byId("toolbar").hidden = !pagesShown;
  for (const box of boxes.values()) focusable(box).disabled = false;
  goToNext();
});

// The element that takes focus for a field: a checkbox's input, else its box.
const focusable = (box) => (box.classList.contains("checkbox") ? box.firstChild : box);

function nextEmpty(after) {
  const start = after ? toFill.findIndex((f) => f.id === after) + 1 : 0;
  const order = [...toFill.slice(start), ...toFill.slice(0, start)];
  return order.find((f) => f.required && !isFilled(f));
}

// The field the guide last pointed at or the signer last opened.
let current;
function goToNext(after) {
  for (const box of boxes.values()) box.classList.remove("current");
  const field = nextEmpty(after);
  current = field?.id;
  const target = field ? boxes.get(field.id) : byId("sign");
  if (!target) return;
  if (field) target.classList.add("current");
  target.scrollIntoView({ block: "center", behavior: "smooth" });
  focusable(target).focus({ preventScroll: true });
}

byId("next-field")?.addEventListener("click", () => goToNext(current));

// The dialog in which one field is filled; present only while the signer can act.
const dialog = byId("field-dialog");
const input = byId("dialog-input");
const preview = byId("dialog-preview");
const pad = byId("dialog-pad");
let editing = null;
let drawn = false;
if (dialog) setUpDialog();

function openDialog(field) {
  editing = field;
  current = field.id;
  const signature = field.type === "SIGNATURE" || field.type === "INITIALS";
  byId("dialog-title").textContent = field.name;
  byId("dialog-typed").hidden = !signature && !TYPED.includes(field.type);
  byId("dialog-drawn").hidden = !signature;
  byId("dialog-choices").hidden = field.type !== "RADIO";
  byId("dialog-select-box").hidden = field.type !== "DROPDOWN";
  byId("dialog-file-box").hidden = field.type !== "ATTACHMENT";
  byId("dialog-error").textContent = "";
  byId("dialog-input-label").textContent = signature ? words["sign-dialog-type"] : field.type === "TEXT" ? words["sign-dialog-text"] : field.kind;
  pad.setAttribute("aria-label", words[`pad-${field.type}`] ?? "");
  const entered = values.get(field.id);
  setInputRules(field);
  setChoices(field, entered?.value);
  byId("dialog-file").value = "";
  byId("dialog-file-status").textContent = entered?.kind === "file" ? entered.shown : "";
  input.value = entered && entered.kind !== "drawn" && TYPED.concat(["SIGNATURE", "INITIALS"]).includes(field.type) ? entered.value : "";
  preview.hidden = !signature;
  preview.textContent = signature ? asStamped(input.value) : "";
  clearPad();
  if (entered?.kind === "drawn") {
    const image = new Image();
    image.onload = () => { pad.getContext("2d").drawImage(image, 0, 0); drawn = true; };
    image.src = entered.value;
  }
  dialog.showModal();
  const first = { RADIO: () => byId("dialog-choices").querySelector("input:checked") ?? byId("dialog-choices").querySelector("input"), DROPDOWN: () => byId("dialog-select"), ATTACHMENT: () => byId("dialog-file") }[field.type];
  (first ? first() : input).focus();
}

// The dialog's input takes the field's own rules, which the browser checks before Apply (the
// server checks them again): an e-mail address, a number within its bounds and decimals, a text
// of at most maxLength characters matching its pattern.
function setInputRules(field) {
  for (const attribute of ["min", "max", "step", "maxlength", "pattern", "inputmode"]) input.removeAttribute(attribute);
  input.type = { NUMBER: "number", EMAIL: "email" }[field.type] ?? "text";
  input.autocomplete = { NAME: "name", EMAIL: "email", COMPANY: "organization" }[field.type] ?? "off";
  if (field.type === "NUMBER") {
    if (field.min != null) input.min = field.min;
    if (field.max != null) input.max = field.max;
    input.step = field.decimals == null ? "any" : field.decimals === 0 ? "1" : `0.${"0".repeat(field.decimals - 1)}1`;
  }
  if (field.maxLength != null) input.maxLength = field.maxLength;
  if (field.pattern) input.pattern = field.pattern;
}

// A RADIO field's options as a radio group (a fieldset whose legend names the field); a
// DROPDOWN's as a select.
function setChoices(field, chosen) {
  const list = byId("dialog-choices-list");
  list.replaceChildren();
  const select = byId("dialog-select");
  select.replaceChildren(new Option(words["sign-dialog-choose"], ""));
  if (field.type === "RADIO") {
    byId("dialog-choices-legend").textContent = field.name;
    for (const [i, option] of (field.options ?? []).entries()) {
      const label = document.createElement("label");
      label.className = "check";
      const radio = document.createElement("input");
      Object.assign(radio, { type: "radio", name: "dialog-choice", value: option, id: `dialog-choice-${i}`, checked: option === chosen });
      const text = document.createElement("span");
      text.dir = "auto";
      text.textContent = option;
      label.append(radio, text);
      list.append(label);
    }
  } else if (field.type === "DROPDOWN") {
    byId("dialog-select-label").textContent = field.name;
    for (const option of field.options ?? []) select.append(new Option(option, option, false, option === chosen));
  }
}
// As the final PDF will show a typed value: trimmed, runs of white space as one space.
const normalised = (text) => text.trim().replace(/\s+/g, " ");
// Bidi controls and invisible characters, which the final PDF draws as escapes such as <U+202E>
// (signet_i18n::bidi::is_hidden; docs/security.md, "Text drawn from user input").
const HIDDEN = /[\u00AD\u061C\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB\u{E0001}\u{E0020}-\u{E007F}]/gu;
// The preview of a typed value: what the final PDF will draw, each escape read left to right.
const asStamped = (text) => normalised(text).replace(HIDDEN, (c) =>
  `\u2066<U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}>\u2069`);
function clearPad() {
  const context = pad.getContext("2d");
  context.clearRect(0, 0, pad.width, pad.height);
  context.lineWidth = 6;
  context.lineCap = "round";
  context.lineJoin = "round";
  context.strokeStyle = "#0d2673";
  drawn = false;
}
function setUpDialog() {
  input.addEventListener("input", () => {
    if (editing && !TYPED.includes(editing.type)) preview.textContent = asStamped(input.value);
  });

  let drawing = false;
  const point = (event) => {
    const bounds = pad.getBoundingClientRect();
    return [(event.clientX - bounds.left) * (pad.width / bounds.width), (event.clientY - bounds.top) * (pad.height / bounds.height)];
  };
  const context = pad.getContext("2d");
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
    drawn = true;
  });
  pad.addEventListener("pointerup", () => { drawing = false; });
  pad.addEventListener("pointercancel", () => { drawing = false; });
  byId("dialog-clear").addEventListener("click", clearPad);
  byId("dialog-cancel").addEventListener("click", () => dialog.close());

  byId("dialog-apply").addEventListener("click", async () => {
    const field = editing;
    if (!field) return;
    const signature = field.type === "SIGNATURE" || field.type === "INITIALS";
    const typed = normalised(input.value);
    let entered = null;
    let focusOnError = input;
    let emptyWords = words["sign-error-dialog-empty"];
    if (signature && drawn) entered = { kind: "drawn", value: pad.toDataURL("image/png") };
    else if (signature && typed) entered = { kind: "typed", value: typed };
    else if (TYPED.includes(field.type) && input.value.trim()) {
      if (!input.checkValidity()) {
        byId("dialog-error").textContent = input.validationMessage;
        input.focus();
        return;
      }
      entered = { kind: "text", value: input.value.trim() };
    } else if (field.type === "RADIO") {
      const chosen = byId("dialog-choices").querySelector("input:checked");
      if (chosen) entered = { kind: "text", value: chosen.value };
      focusOnError = byId("dialog-choices").querySelector("input");
      emptyWords = words["sign-error-dialog-choose"];
    } else if (field.type === "DROPDOWN") {
      const chosen = byId("dialog-select").value;
      if (chosen) entered = { kind: "text", value: chosen };
      focusOnError = byId("dialog-select");
      emptyWords = words["sign-error-dialog-choose"];
    } else if (field.type === "ATTACHMENT") {
      const file = byId("dialog-file").files[0];
      focusOnError = byId("dialog-file");
      emptyWords = words["sign-error-dialog-file"];
      if (file) {
        byId("dialog-file-status").textContent = words["sign-dialog-uploading"];
        const answer = await upload(field, file);
        if (!answer) {
          byId("dialog-file-status").textContent = "";
          byId("dialog-file").focus();
          return;
        }
        entered = { kind: "file", value: answer.data.id, shown: answer.data.name };
        byId("dialog-file-status").textContent = answer.data.name;
      } else if (values.get(field.id)?.kind === "file") {
        entered = values.get(field.id);
      }
    }
    if (!entered && !field.required) {
      // An optional field may be left, or made, empty.
      values.delete(field.id);
      show(field);
      updateProgress();
      dialog.close();
      goToNext(field.id);
      return;
    }
    if (!entered) {
      byId("dialog-error").textContent = emptyWords;
      focusOnError?.focus();
      return;
    }
    values.set(field.id, entered);
    show(field);
    updateProgress();
    dialog.close();
    byId("sign-error").textContent = "";
    goToNext(field.id);
  });
  // The close event comes as a task of its own, which input may overtake: by then the dialog
  // may be open again for the next field, which it must not forget.
  dialog.addEventListener("close", () => { if (!dialog.open) editing = null; });
}

// Sign: every field filled, or a list of what is missing, each named.
byId("sign")?.addEventListener("click", async () => {
  const missing = required.filter((f) => !isFilled(f));
  if (missing.length) {
    showErrors(missing.map((f) => f.empty));
    goToNext();
    return;
  }
  const fields = toFill.filter((f) => values.has(f.id)).map((f) => ({ id: f.id, value: values.get(f.id).value }));
  const answer = await post("/submit", { fields }, "sign-error", fields);
  if (answer && !finish("signed")) location.reload();
});

function showErrors(lines) {
  const target = byId("sign-error");
  target.replaceChildren();
  const heading = document.createElement("p");
  heading.textContent = words["sign-error-heading"];
  const list = document.createElement("ul");
  for (const line of lines) {
    const item = document.createElement("li");
    item.textContent = line;
    list.append(item);
  }
  target.append(heading, list);
}

// Posts JSON to the link's endpoint; on a refusal shows the envelope's message and each error,
// naming the field by what the page calls it ("Signature, page 2: ...").
async function post(path, body, errorId, sentFields) {
  let response;
  try {
    response = await fetch(data.base + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch {
    byId(errorId).textContent = words["sign-error-network"];
    return null;
  }
  const json = await response.json().catch(() => ({ message: response.statusText }));
  if (response.ok) return json;
  const named = (json.errors || []).map((e) => {
    const index = /^fields\[(\d+)\]/.exec(e.field ?? "")?.[1];
    const field = index !== undefined && sentFields ? data.fields.find((f) => f.id === sentFields[index]?.id) : null;
    return `${field ? field.name : e.field}: ${e.reason}`;
  });
  if (errorId === "sign-error") showErrors([json.message, ...named]);
  else byId(errorId).textContent = [json.message, ...named].join("\n");
  return null;
}

// Sends an ATTACHMENT field's file as it is (its kind is read from its bytes by the server);
// on a refusal says why in the dialog.
async function upload(field, file) {
  let response;
  try {
    const url = `${data.base}/fields/${field.id}/attachment?name=${encodeURIComponent(file.name)}`;
    response = await fetch(url, { method: "POST", headers: { "content-type": file.type || "application/octet-stream" }, body: file });
  } catch {
    byId("dialog-error").textContent = words["sign-error-network"];
    return null;
  }
  const json = await response.json().catch(() => ({ message: response.statusText }));
  if (response.ok) return json;
  byId("dialog-error").textContent = [json.message, ...(json.errors || []).map((e) => e.reason)].join("\n");
  return null;
}

byId("decline-submit")?.addEventListener("click", async () => {
  if (!confirm(words["sign-decline-confirm"])) return;
  const answer = await post("/decline", { reason: byId("reason").value }, "decline-error");
  if (answer && !finish("declined")) location.reload();
});

// The pages last: everything above works while they render. Each field is added to its page in
// the order the server sorted them (reading order), which is the order of focus.
const fit = (natural) => Math.min(1.5, (root.clientWidth - 4) / natural.width);
// A person has the page open: the session call records that they viewed the document (fetching
// the page did not, as link scanners and previews fetch it too). Made once the pages are
// drawn, or have failed to draw.
const viewed = () => fetch(data.base + "/session").catch(() => {});
try {
  const pages = await renderPages(root, root.dataset, fit, (frame, canvas, number, viewport, scale) => {
    // Once the signer cannot act (signed, completed, declined...) the page shows the PDF alone:
    // boxes over a signed PDF would hide its stamped values.
    if (!data.canAct) return;
    for (const field of data.fields.filter((f) => f.page === number)) {
      const date = field.type === "DATE";
      const fixed = date || field.readOnly;
      const checkbox = field.type === "CHECKBOX" && !fixed;
      const box = document.createElement(fixed || checkbox ? "div" : "button");
      box.className = `field ${date ? "date filled" : fixed ? "fixed filled" : checkbox ? "checkbox" : "todo"}`;
      box.dataset.type = field.type;
      Object.assign(box.style, {
        left: `${field.x * scale}px`, top: `${field.y * scale}px`,
        width: `${field.width * scale}px`, height: `${field.height * scale}px`,
        // Tinted in the recipient's colour, opaque enough to read over the page's own text.
        borderColor: data.color, background: `linear-gradient(${data.color}26, ${data.color}26), #ffffffe6`,
        fontSize: `${Math.max(9, Math.min(16, field.height * scale * 0.45))}px`,
      });
      if (date) {
        box.innerHTML = `<span class="sr-only"></span><span aria-hidden="true"></span>`;
        box.firstChild.textContent = `${field.name}: ${data.today}, ${words["sign-field-date-auto"]}`;
        box.lastChild.textContent = data.today;
      } else if (fixed) {
        box.innerHTML = `<span class="sr-only"></span><span aria-hidden="true" dir="auto"></span>`;
        const shown = field.type === "CHECKBOX" ? (field.value === "true" ? "✓" : "") : field.value ?? "";
        box.firstChild.textContent = `${field.name}: ${shown}, ${words["sign-field-read-only"]}`;
        box.lastChild.textContent = shown;
      } else if (checkbox) {
        // A real checkbox, named by the field: Space ticks it, as everywhere.
        const tick = document.createElement("input");
        tick.type = "checkbox";
        tick.setAttribute("aria-label", field.name);
        tick.disabled = !data.consented;
        tick.addEventListener("change", () => {
          values.set(field.id, { kind: "text", value: tick.checked ? "true" : "false" });
          current = field.id;
          show(field);
          updateProgress();
          byId("sign-error").textContent = "";
        });
        box.append(tick);
      } else {
        box.type = "button";
        box.disabled = !data.consented;
        box.addEventListener("click", () => openDialog(field));
      }
      boxes.set(field.id, box);
      frame.append(box);
      if (fixed && !date) stampSize(box, box.lastChild);
      show(field);
    }
  });
  // No page drawn: the note in their place says why, and there is no field to fill in, so the
  // consent step and the toolbar, which lead to the fields, go too. Declining stays.
  if (!pages) {
    pagesShown = false;
    for (const id of ["consent", "toolbar"]) if (byId(id)) byId(id).hidden = true;
  }
} finally {
  await viewed();
  tell(pagesShown ? "signet:ready" : "signet:error", pagesShown ? {} : { reason: "pages_not_shown" });
}
updateProgress();
