// A template's roles and its fields' labels on the placement page (place-fields.mjs, which
// draws the pages and the fields): add a role, rename it, make it a signer or a viewer, give it
// a signing group, remove it (and its fields); label each field, mark a TEXT field read-only.
// Save sends every role with its fields, as the body of PATCH /templates/:id names them; a blank
// label is given `<role>.<type>.<n>` by the server.

const KINDS = [
  ["SIGNER", "Signer (signs their fields)"],
  ["VIEWER", "Viewer (receives a copy; signs nothing)"],
];
// What is shown of a name: without the marks that could reorder the text around it.
const shown = (name) => name.replace(/[\u202A-\u202E\u2066-\u2069]/g, "") || "(no name)";

export function templateRoles(root, { fields, personSelect, status, drop }) {
  const palette = JSON.parse(root.dataset.palette);
  const roles = JSON.parse(root.dataset.people).map((r) => ({ ...r, signingOrder: r.signingOrder ?? "" }));
  let made = roles.length;
  const roleList = document.getElementById("role-list");
  const fieldList = document.getElementById("field-list");
  const rows = new Map();
  let listed = 0;
  const person = (key) => roles.find((r) => r.key === key);

  // The menu of whom a new field is for, keeping the choice.
  const options = () => {
    const chosen = personSelect.value;
    personSelect.replaceChildren(...roles.map((r) => new Option(shown(r.name), r.key)));
    if (roles.some((r) => r.key === chosen)) personSelect.value = chosen;
  };

  const input = (id, text, attributes) => {
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = text;
    const element = document.createElement(attributes.tag ?? "input");
    element.id = id;
    for (const [name, value] of Object.entries(attributes)) if (name !== "tag") element.setAttribute(name, value);
    return [label, element];
  };

  function showRole(role) {
    const box = document.createElement("fieldset");
    box.className = "role";
    box.dataset.key = role.key;
    const legend = document.createElement("legend");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = role.color;
    const title = document.createElement("bdi");
    legend.append(swatch, title);
    const [nameLabel, name] = input(`${role.key}-name`, "Name", { type: "text", maxlength: "100", class: "role-name" });
    name.value = role.name;
    const [kindLabel, kind] = input(`${role.key}-kind`, "Takes part as", { tag: "select", class: "role-kind" });
    kind.append(...KINDS.map(([value, text]) => new Option(text, value)));
    kind.value = role.role;
    const [orderLabel, order] = input(`${role.key}-order`, "Signing group (blank: signs with everyone)", { type: "number", min: "1", max: "1000", step: "1", inputmode: "numeric", class: "role-order" });
    order.value = role.signingOrder;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "danger remove-role";
    remove.textContent = "Remove role and its fields";
    const rename = () => {
      title.textContent = shown(role.name);
      options();
      for (const field of fields.filter((f) => f.person === role.key)) {
        field.show();
        rows.get(field)?.describe();
      }
    };
    name.addEventListener("input", () => {
      role.name = name.value;
      rename();
    });
    kind.addEventListener("change", () => (role.role = kind.value));
    order.addEventListener("input", () => (role.signingOrder = order.value));
    remove.addEventListener("click", () => {
      for (const field of fields.filter((f) => f.person === role.key)) drop(field);
      roles.splice(roles.indexOf(role), 1);
      box.remove();
      options();
    });
    box.append(legend, nameLabel, name, kindLabel, kind, orderLabel, order, remove);
    roleList.append(box);
    title.textContent = shown(role.name);
    return name;
  }

  for (const role of roles) showRole(role);
  options();
  document.getElementById("add-role").addEventListener("click", () => {
    let n = roles.length + 1;
    while (roles.some((r) => r.name === `Role ${n}`)) n++;
    const role = { key: `r${made}`, name: `Role ${n}`, color: palette[made % palette.length], role: "SIGNER", signingOrder: "" };
    made++;
    roles.push(role);
    const name = showRole(role);
    options();
    personSelect.value = role.key;
    name.focus();
    name.select();
    status.className = "";
    status.textContent = `${shown(role.name)} added: place its fields on the pages.`;
  });

  return {
    person: (key) => {
      const role = person(key);
      return { shown: shown(role.name), color: role.color };
    },
    // Each field's row in the list: whose it is, where, its label and, for TEXT, read-only.
    added(field) {
      const n = listed++;
      const row = document.createElement("li");
      row.className = "field-row";
      const what = document.createElement("span");
      const [labelLabel, label] = input(`field-${n}-label`, "Label", { type: "text", maxlength: "100", class: "field-label" });
      label.value = field.label ?? "";
      label.addEventListener("input", () => (field.label = label.value));
      const describe = () => {
        const role = person(field.person);
        const swatch = document.createElement("span");
        swatch.className = "swatch";
        swatch.style.background = role.color;
        const name = document.createElement("bdi");
        name.textContent = shown(role.name);
        what.replaceChildren(swatch, name, ` · ${field.type} · page ${field.page}`);
        label.placeholder = `blank: ${role.name.trim()}.${field.type.toLowerCase()}.n`;
      };
      describe();
      row.append(what, labelLabel, label);
      if (field.type === "TEXT") {
        const readOnly = document.createElement("label");
        readOnly.className = "inline";
        const box = document.createElement("input");
        box.type = "checkbox";
        box.className = "field-read-only";
        box.checked = Boolean(field.readOnly);
        box.addEventListener("change", () => (field.readOnly = box.checked));
        readOnly.append(box, " Read-only: stamped with the value the document is made with");
        row.append(document.createElement("br"), readOnly);
      }
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "danger";
      remove.textContent = "Remove field";
      remove.addEventListener("click", () => drop(field));
      row.append(document.createElement("br"), remove);
      fieldList.append(row);
      rows.set(field, { row, describe });
    },
    dropped(field) {
      rows.get(field)?.row.remove();
      rows.delete(field);
    },
    body: (box) => ({
      roles: roles.map((role) => {
        const body = {
          name: role.name,
          role: role.role,
          fields: fields
            .filter((f) => f.person === role.key)
            .map((f) => ({
              label: f.label ?? "",
              type: f.type,
              page: f.page,
              ...box(f),
              // What the page does not edit (options, bounds, a prefill…) goes back as saved.
              ...(f.properties ?? {}),
              ...(f.type === "TEXT" || f.readOnly ? { readOnly: Boolean(f.readOnly) } : {}),
            })),
        };
        const order = String(role.signingOrder).trim();
        if (order) body.signingOrder = Number(order);
        if (role.language) body.language = role.language;
        return body;
      }),
    }),
  };
}
