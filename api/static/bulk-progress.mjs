// A running bulk send's progress page: asks for its progress every few seconds and updates the
// bar and the counts in place (announced politely); once it is no longer RUNNING, loads the
// page again for its final state (failures, no Cancel button).
const section = document.getElementById("progress");
const every = 3000;

async function follow() {
  try {
    const response = await fetch(section.dataset.url, { headers: { Accept: "application/json" } });
    if (response.ok) {
      const p = await response.json();
      if (p.status !== "RUNNING") {
        location.reload();
        return;
      }
      const done = p.created + p.failed + p.cancelled;
      const bar = document.getElementById("bar");
      bar.value = done;
      bar.textContent = `${done} of ${p.total}`;
      for (const [id, value] of Object.entries({ done, created: p.created, failed: p.failed, cancelled: p.cancelled, pending: p.pending })) {
        const el = document.getElementById(id);
        if (el.textContent !== String(value)) el.textContent = String(value);
      }
    }
  } catch {
    // Offline for a moment: try again at the next tick.
  }
  setTimeout(follow, every);
}

setTimeout(follow, every);
